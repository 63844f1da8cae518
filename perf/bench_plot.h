/*
 * bench_plot.h -- the CPU benchmarks draw their plot from the CSV they just
 * wrote: gnuplot runs the given script (from the repository root) with csv,
 * out and cpu set; out is png, or when NULL the CSV's name with .png for
 * .csv.  Skipped, with a line that says so, when gnuplot or the script is
 * missing.
 */
#ifndef BENCH_PLOT_H
#define BENCH_PLOT_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void bench_plot(const char *script, const char *csv, const char *png, const char *cpu)
{
    char out[4096], cmd[8192];
    const size_t n = strlen(csv);
    if (png) {
        snprintf(out, sizeof out, "%s", png);
    } else if (n < 4 || n >= sizeof out || strcmp(csv + n - 4, ".csv") != 0) {
        printf("plot: skipped (the CSV's name does not end in .csv)\n");
        return;
    } else {
        memcpy(out, csv, n - 4);
        strcpy(out + n - 4, ".png");
    }
    if (access(script, R_OK) != 0 || system("command -v gnuplot >/dev/null 2>&1") != 0) {
        printf("plot: skipped (needs gnuplot and %s in the current directory)\n", script);
        return;
    }
    snprintf(cmd, sizeof cmd, "gnuplot -e \"csv='%s'; out='%s'; cpu='%s'\" %s", csv, out, cpu ? cpu : "", script);
    if (system(cmd) == 0) printf("plot: %s\n", out);
    else printf("plot: gnuplot failed (%s)\n", cmd);
}
#endif
