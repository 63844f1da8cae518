/*
 * bench_plot.h -- the CPU benchmarks draw their plot from the CSV they just
 * wrote: gnuplot runs the given script (from the repository root) with
 * csv, out and cpu set, out being the CSV's name with .png for .csv.
 * Skipped, with a line that says so, when gnuplot or the script is missing.
 */
#ifndef BENCH_PLOT_H
#define BENCH_PLOT_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void bench_plot(const char *script, const char *csv, const char *cpu)
{
    char png[4096], cmd[8192];
    const size_t n = strlen(csv);
    if (n < 4 || n >= sizeof png || strcmp(csv + n - 4, ".csv") != 0) {
        printf("plot: skipped (the CSV's name does not end in .csv)\n");
        return;
    }
    memcpy(png, csv, n - 4);
    strcpy(png + n - 4, ".png");
    if (access(script, R_OK) != 0 || system("command -v gnuplot >/dev/null 2>&1") != 0) {
        printf("plot: skipped (needs gnuplot and %s in the current directory)\n", script);
        return;
    }
    snprintf(cmd, sizeof cmd, "gnuplot -e \"csv='%s'; out='%s'; cpu='%s'\" %s", csv, png, cpu ? cpu : "", script);
    if (system(cmd) == 0) printf("plot: %s\n", png);
    else printf("plot: gnuplot failed (%s)\n", cmd);
}
#endif
