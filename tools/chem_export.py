#!/usr/bin/env python3
"""chem_export.py -- export an ideal-gas mechanism from Cantera's YAML into the
text files that samples/chem/ reads, with Cantera's reference values.

    python3 tools/chem_export.py MECHANISM.yaml PREFIX [--states N] [--seed S]

The shipped files come from (Cantera 3.2.0, default seed):
    python3 tools/chem_export.py h2o2.yaml samples/chem/h2o2
    python3 tools/chem_export.py gri30.yaml samples/chem/gri30 --states 200
    python3 tools/chem_export.py tools/chem_pdep.yaml samples/chem/pdep --states 200

writes <prefix>.mech (the mechanism) and <prefix>.ref (reference values).
Cantera (pip install cantera) is needed only here: the C code and its tests
read the two files and nothing else.

Both files are whitespace-separated tokens; '#' starts a comment that runs to
the end of the line.  Units: K, Pa, kg, kmol, m^3, s (Cantera's SI units);
activation energies are stored as Ea/R in K, as Cantera evaluates them.

<prefix>.mech
    chem-mech 1
    name <mechanism>
    p-ref <Pa>              standard-state pressure of the thermo data
    species <K>
      then K lines: <name> <W kg/kmol> <T-min> <T-mid> <T-max>
                    <a0..a6 for T <= T-mid> <a0..a6 for T > T-mid>
      (NASA 7-coefficient polynomials: cp/R = a0 + a1 T + ... + a4 T^4,
       h/RT = a0 + a1 T/2 + ... + a4 T^4/5 + a5/T,
       s/R = a0 ln T + a1 T + a2 T^2/2 + a3 T^3/3 + a4 T^4/4 + a6;
       the polynomials are used outside [T-min, T-max] too, as Cantera does)
    reactions <I>
      then I lines: <kind> <reversible 0|1>
                    <nr> (<species> <nu>){nr}  <np> (<species> <nu>){np}
                    <no> (<species> <order>){no}   forward orders that differ
                                                   from the reactants' nu
                    <rate parameters of the kind>
      kinds and their parameters:
        arrhenius   A b Ea/R                     k = A T^b exp(-(Ea/R)/T)
        three-body  A b Ea/R  <third body>       k [M]
        lindemann   A0 b0 Ea0/R  Ainf binf Eainf/R  <third body>
        troe        A0 b0 Ea0/R  Ainf binf Eainf/R  <third body>  a T3 T1 T2
                    k = kinf Pr/(1 + Pr) F,  Pr = k0 [M] / kinf,  F = 1 (Lindemann)
                    or Troe's F with Fcent = (1-a) exp(-T/T3) + a exp(-T/T1)
                    + exp(-T2/T); T2 = 0 means no T2 term, |T3| or |T1| below
                    1e-300 means that term is zero (Cantera's conventions)
        plog        <np> (<P Pa> <nk> (A b Ea/R){nk}){np}, P ascending:
                    ln k interpolated linearly in ln P between the two
                    pressures around P (the sum of the nk expressions at
                    each), the end values outside the range
      <third body> = <default efficiency> <ne> (<species> <efficiency>){ne}:
        [M] = sum_k eff_k C_k, eff_k the listed value or the default
    Reverse rates (reversible 1) follow from equilibrium:
        kr = kf exp(sum_k nu_k g_k/RT - dnu ln(p_ref/RT)),  nu = products - reactants,
    capped at 1e300 as Cantera caps them.

<prefix>.ref
    chem-ref 1
    name <mechanism>
    species <K> <names...>
    states <N>
      then per state:
        state <i> <kind> <T K> <P Pa>
        Y     K mass fractions (inputs: short decimals, read exactly; Cantera
              normalizes them by their sum, so a user must too)
        wdot  K net production rates, kmol/m^3/s
        gross K creation + destruction rates, kmol/m^3/s (the scale of the
              terms that cancel in wdot: near equilibrium wdot << gross)
        rhs   K+1 values d(Y_1..Y_K, T)/dt of the adiabatic constant-pressure
              ideal-gas reactor: dY_k/dt = wdot_k W_k / rho,
              dT/dt = -sum_k h_k wdot_k / (rho cp), h_k molar enthalpies
      kinds: random (random T, P, composition), mixture (fuel/air, no
      products), trajectory (states of an igniting reactor), equilibrium
      (equilibrium at T, P), near-equilibrium (equilibrium perturbed by a
      relative 1e-8..1e-2)
    ignition <M>
      then M lines: case <fuel> <phi> <T0 K> <P0 Pa> <tau s> <tau-spread>
        tau: ignition delay of the adiabatic constant-pressure reactor from
        fuel/air (air = O2 + 3.76 N2 by moles) at equivalence ratio phi:
        the time of the maximum of dT/dt (parabola through the integrator's
        steps around it), Cantera's CVODES at rtol 1e-12, atol 1e-20;
        tau-spread: |tau(rtol 1e-9) - tau| / tau, the integration's share of
        the uncertainty.
Inputs are written as short decimals, outputs with %.17g.
"""
import argparse
import math
import sys

import numpy as np

try:
    import cantera as ct
except ImportError:
    sys.exit("chem_export.py needs Cantera: python3 -m pip install cantera")

FMT = "%.17g"
AIR = "O2:1, N2:3.76"

# fuels for the fresh-mixture and trajectory states and the ignition cases, per mechanism
FUELS = {"h2o2": ["H2"], "gri30": ["CH4", "H2"]}
IGNITION_FUEL = {"h2o2": "H2", "gri30": "CH4"}


def g(x):
    return FMT % x


def short(x, digits=9):
    """x rounded to a short decimal that reads back as the same double."""
    s = "%.*g" % (digits, x)
    return float(s), s


# ---------------------------------------------------------------- mechanism

def third_body_tokens(rxn, names):
    tb = rxn.third_body
    eff = [(k, v) for k, v in sorted(tb.efficiencies.items(), key=lambda kv: names.index(kv[0]))]
    return [g(tb.default_efficiency), str(len(eff))] + [t for k, v in eff for t in (k, g(v))]


def arrhenius_tokens(rate):
    return [g(rate.pre_exponential_factor), g(rate.temperature_exponent),
            g(rate.activation_energy / ct.gas_constant)]


def reaction_line(rxn, names):
    typ = rxn.reaction_type
    rate = rxn.rate
    if typ == "Arrhenius":
        kind, params = "arrhenius", arrhenius_tokens(rate)
    elif typ == "three-body-Arrhenius":
        kind, params = "three-body", arrhenius_tokens(rate) + third_body_tokens(rxn, names)
    elif typ in ("falloff-Lindemann", "falloff-Troe"):
        if rate.chemically_activated:
            raise ValueError("chemically activated falloff is not supported: " + rxn.equation)
        params = arrhenius_tokens(rate.low_rate) + arrhenius_tokens(rate.high_rate)
        params += third_body_tokens(rxn, names)
        if typ == "falloff-Troe":
            c = list(rate.falloff_coeffs)
            if len(c) == 3:
                c.append(0.0)  # Cantera: no T2 term
            kind = "troe"
            params += [g(x) for x in c]
        else:
            kind = "lindemann"
    elif typ == "pressure-dependent-Arrhenius":
        if rxn.third_body is not None:
            raise ValueError("PLOG with a third body is not supported: " + rxn.equation)
        by_p = {}
        for p, r in rate.rates:
            by_p.setdefault(p, []).append(r)
        kind, params = "plog", [str(len(by_p))]
        for p in sorted(by_p):
            params += [g(p), str(len(by_p[p]))]
            for r in by_p[p]:
                params += arrhenius_tokens(r)
    else:
        raise ValueError("reaction type %s is not supported: %s" % (typ, rxn.equation))

    def side(d):
        items = sorted(d.items(), key=lambda kv: names.index(kv[0]))
        return [str(len(items))] + [t for k, v in items for t in (k, g(v))]

    orders = {k: v for k, v in rxn.orders.items() if rxn.reactants.get(k) != v}
    toks = [kind, "1" if rxn.reversible else "0"] + side(rxn.reactants) + side(rxn.products)
    toks += side(orders) + params
    return " ".join(toks) + "  # " + rxn.equation


def write_mech(gas, name, path, source):
    names = gas.species_names
    out = ["# %s.mech -- ideal-gas mechanism read by samples/chem/mech.c, exported from" % name,
           "# Cantera's %s (Cantera %s) by tools/chem_export.py, whose docstring gives" % (source, ct.__version__),
           "# the format.  Units: K, Pa, kg, kmol, m^3, s; activation energies as Ea/R in K.",
           "chem-mech 1", "name " + name]
    pref = {s.thermo.reference_pressure for s in gas.species()}
    if len(pref) != 1:
        raise ValueError("species with different reference pressures")
    out.append("p-ref " + g(pref.pop()))
    out.append("species %d" % gas.n_species)
    out.append("# name  W  T-min T-mid T-max  a0..a6 (T <= T-mid)  a0..a6 (T > T-mid)")
    for s in gas.species():
        th = s.thermo
        if type(th).__name__ != "NasaPoly2":
            raise ValueError("species %s: thermo %s is not NASA-7" % (s.name, type(th).__name__))
        c = th.coeffs  # [T-mid, high a0..a6, low a0..a6]
        toks = [s.name, g(s.molecular_weight), g(th.min_temp), g(c[0]), g(th.max_temp)]
        toks += [g(x) for x in c[8:15]] + [g(x) for x in c[1:8]]
        out.append(" ".join(toks))
    out.append("reactions %d" % gas.n_reactions)
    out.append("# kind rev  nr (sp nu)..  np (sp nu)..  no (sp order)..  rate parameters  # equation")
    for r in gas.reactions():
        out.append(reaction_line(r, names))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---------------------------------------------------------------- references

def reactor_rhs(gas):
    """d(Y, T)/dt of the adiabatic constant-pressure ideal-gas reactor."""
    wdot = gas.net_production_rates
    rho = gas.density
    dY = wdot * gas.molecular_weights / rho
    dT = -np.dot(gas.partial_molar_enthalpies, wdot) / (rho * gas.cp_mass)
    return np.append(dY, dT)


def set_fresh(gas, fuel, phi, T, P):
    gas.set_equivalence_ratio(phi, fuel, AIR)
    gas.TP = T, P


def ignition(gas, fuel, phi, T0, P0, rtol):
    """Time of the maximum of dT/dt, refined by a parabola through the steps around it."""
    set_fresh(gas, fuel, phi, T0, P0)
    r = ct.IdealGasConstPressureReactor(gas, clone=False)  # steps update gas
    net = ct.ReactorNet([r])
    net.rtol, net.atol = rtol, 1e-20
    net.max_steps = 10 ** 7
    ts, rates, states = [0.0], [reactor_rhs(gas)[-1]], []
    while True:
        t = net.step()
        ts.append(t)
        rates.append(reactor_rhs(gas)[-1])
        states.append((t, gas.T, gas.P, gas.Y.copy()))
        i = int(np.argmax(rates))
        # past the maximum: burnt (T well above T0) and dT/dt down to 1% of its peak
        if gas.T > T0 + 400 and rates[-1] < 0.01 * rates[i] and i < len(rates) - 2:
            break
        if t > 100.0:
            raise RuntimeError("no ignition within 100 s: %s phi %g T0 %g P0 %g" % (fuel, phi, T0, P0))
    i = int(np.argmax(rates))
    t0, t1, t2 = ts[i - 1], ts[i], ts[i + 1]
    y0, y1, y2 = rates[i - 1], rates[i], rates[i + 1]
    # vertex of the parabola through the three points
    d = (t0 - t1) * (t0 - t2) * (t1 - t2)
    a = (t2 * (y1 - y0) + t1 * (y0 - y2) + t0 * (y2 - y1)) / d
    b = (t2 * t2 * (y0 - y1) + t1 * t1 * (y2 - y0) + t0 * t0 * (y1 - y2)) / d
    tau = -b / (2 * a) if a < 0 else t1
    if not (t0 <= tau <= t2):
        tau = t1
    return tau, states


def random_states(gas, name, n, rng):
    """(kind, T, P, Y) of n varied states; inputs rounded to short decimals."""
    K = gas.n_species
    fuels = FUELS.get(name, [gas.species_names[0]])
    atm = ct.one_atm
    kinds = (["random"] * 30 + ["mixture"] * 15 + ["trajectory"] * 25 +
             ["equilibrium"] * 10 + ["near-equilibrium"] * 20)
    traj_pool = []
    out = []
    for i in range(n):
        kind = kinds[i % len(kinds)]
        T = rng.uniform(300.0, 3000.0)
        P = atm * 10.0 ** rng.uniform(-1.0, math.log10(50.0))
        if kind == "random":
            Y = 10.0 ** rng.uniform(-12.0, 0.0, K)
            Y[rng.random(K) < 0.3] = 0.0
            if Y.sum() == 0.0:
                Y[rng.integers(K)] = 1.0
        elif kind == "mixture":
            set_fresh(gas, fuels[i % len(fuels)], rng.uniform(0.3, 3.0), T, P)
            Y = gas.Y
        elif kind == "trajectory":
            if not traj_pool:
                fuel = fuels[rng.integers(len(fuels))]
                _, st = ignition(gas, fuel, rng.uniform(0.5, 2.0), rng.uniform(900.0, 1500.0),
                                 P, 1e-8)
                idx = np.linspace(0, len(st) - 1, 12).astype(int)
                traj_pool = [st[j] for j in idx]
                rng.shuffle(traj_pool)
            _, T, P, Y = traj_pool.pop()
        else:
            T = rng.uniform(800.0, 3000.0)
            Y = 10.0 ** rng.uniform(-3.0, 0.0, K)
            gas.TPY = T, P, Y
            gas.equilibrate("TP")
            Y = gas.Y.copy()
            if kind == "near-equilibrium":
                eps = 10.0 ** rng.uniform(-8.0, -2.0)
                Y *= 1.0 + eps * rng.uniform(-1.0, 1.0, K)
        T, Ts = short(T)
        P, Ps = short(P)
        Y = np.maximum(Y, 0.0)
        Y = Y / Y.sum()
        Ys = [short(y) for y in Y]
        out.append((kind, T, Ts, P, Ps, np.array([y for y, _ in Ys]), [s for _, s in Ys]))
    return out


def write_ref(gas, name, path, nstates, seed, source):
    rng = np.random.default_rng(seed)
    K = gas.n_species
    out = ["# %s.ref -- Cantera %s reference values for %s.mech (from %s), written by" %
           (name, ct.__version__, name, source),
           "# tools/chem_export.py (seed %d), whose docstring gives the format and the" % seed,
           "# definitions.  Units: K, Pa, kmol, m^3, s.",
           "chem-ref 1", "name " + name,
           "species %d %s" % (K, " ".join(gas.species_names)),
           "states %d" % nstates]
    for i, (kind, T, Ts, P, Ps, Y, Ys) in enumerate(random_states(gas, name, nstates, rng)):
        gas.TPY = T, P, Y
        out.append("state %d %s %s %s" % (i, kind, Ts, Ps))
        out.append("Y " + " ".join(Ys))
        out.append("wdot " + " ".join(g(x) for x in gas.net_production_rates))
        out.append("gross " + " ".join(g(x) for x in gas.creation_rates + gas.destruction_rates))
        out.append("rhs " + " ".join(g(x) for x in reactor_rhs(gas)))
    cases = []
    fuel = IGNITION_FUEL.get(name)
    if fuel:
        for P in (1.0, 20.0):
            for T0 in (1000.0, 1200.0, 1400.0):
                for phi in (0.5, 1.0, 2.0):
                    cases.append((fuel, phi, T0, P * ct.one_atm))
    out.append("ignition %d" % len(cases))
    out.append("# case fuel phi T0 P0 tau tau-spread")
    for fuel, phi, T0, P0 in cases:
        tau, _ = ignition(gas, fuel, phi, T0, P0, 1e-12)
        tau9, _ = ignition(gas, fuel, phi, T0, P0, 1e-9)
        out.append("case %s %s %s %s %s %.2g" % (fuel, short(phi)[1], short(T0)[1], short(P0)[1],
                                                 g(tau), abs(tau9 - tau) / tau))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mechanism", help="Cantera YAML file (e.g. h2o2.yaml, gri30.yaml)")
    ap.add_argument("prefix", help="output prefix: writes PREFIX.mech and PREFIX.ref")
    ap.add_argument("--name", help="mechanism name (default: the prefix's base name)")
    ap.add_argument("--states", type=int, default=300, help="reference states (default 300)")
    ap.add_argument("--seed", type=int, default=37, help="random seed (default 37)")
    a = ap.parse_args()
    name = a.name or a.prefix.rstrip("/").split("/")[-1]
    gas = ct.Solution(a.mechanism)
    if gas.thermo_model != "ideal-gas":
        sys.exit("%s: thermo model %s, not ideal-gas" % (a.mechanism, gas.thermo_model))
    source = a.mechanism.split("/")[-1]
    write_mech(gas, name, a.prefix + ".mech", source)
    write_ref(gas, name, a.prefix + ".ref", a.states, a.seed, source)


if __name__ == "__main__":
    main()
