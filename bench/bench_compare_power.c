/* Power of compare's verdicts over repeated runs (issue 14): simulated runs, 2% log-normal
 * run-to-run spread, threshold 3%, FDR 0.05, through sp_ab_min_effect and sp_ab_verdicts.
 * Prints, for true changes of +5% and +10% at 3, 5 and 10 runs per side, the share of
 * comparisons that call the point slower: alone, and among 49 unchanged points (BH over 50);
 * the expected minimum detectable effect; and the A/A and at-threshold false-call rates.
 * Usage: bench_compare_power [TRIALS] (default 2000). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "abstats.h"

#define POINTS 50
#define MAX_RUNS 10
#define RUN_CV 0.02
#define THRESHOLD 0.03
#define FDR 0.05

static uint64_t rng_state = 20261203u;

static double uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return ((double)((rng_state * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
    return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform());
}

/* One comparison of n runs a side over npoints points, the first `changed` of which are shifted
 * by `shift`, the rest by `rest`: how many of the changed points are called slower, and whether
 * any other point got a verdict of change. */
static void compare_once(int n, int npoints, int changed, double shift, double rest, int *called_p,
                         int *false_p)
{
    sp_ab_mintest_t t[POINTS];
    sp_ab_verdict_t v[POINTS];
    double a[MAX_RUNS], b[MAX_RUNS];

    for (int p = 0; p < npoints; p++) {
        double s = p < changed ? shift : rest;
        for (int i = 0; i < n; i++) {
            a[i] = 100.0 * exp(RUN_CV * normal());
            b[i] = 100.0 * s * exp(RUN_CV * normal());
        }
        if (sp_ab_min_effect(a, (size_t)n, b, (size_t)n, THRESHOLD, FDR, 0.8, 0.95, &t[p]) !=
            SP_OK) {
            abort();
        }
    }
    if (sp_ab_verdicts(t, (size_t)npoints, FDR, NULL, NULL, v) != SP_OK) {
        abort();
    }
    *called_p = 0;
    *false_p = 0;
    for (int p = 0; p < npoints; p++) {
        if (p < changed) {
            *called_p += v[p] == SP_AB_SLOWER;
        } else {
            *false_p |= v[p] == SP_AB_SLOWER || v[p] == SP_AB_FASTER;
        }
    }
}

int main(int argc, char **argv)
{
    const int runs[3] = {3, 5, 10};
    const double change[2] = {1.05, 1.10};
    int trials = argc > 1 ? atoi(argv[1]) : 2000;

    if (trials < 10) {
        fprintf(stderr, "usage: bench_compare_power [TRIALS >= 10]\n");
        return 2;
    }
    printf("# compare power: %d simulated comparisons per cell, run-to-run spread %.0f%% "
           "(log-normal), threshold %.0f%%, FDR %.2f\n",
           trials, 100.0 * RUN_CV, 100.0 * THRESHOLD, FDR);
    printf("%-6s %-7s %12s %14s %10s\n", "runs", "change", "power alone", "power in 50", "MDE %");
    for (int r = 0; r < 3; r++) {
        int n = runs[r];
        double se = RUN_CV * sqrt(2.0 / n);
        for (int c = 0; c < 2; c++) {
            int alone = 0, among = 0, called, fp;
            for (int k = 0; k < trials; k++) {
                compare_once(n, 1, 1, change[c], 1.0, &called, &fp);
                alone += called;
                compare_once(n, POINTS, 1, change[c], 1.0, &called, &fp);
                among += called;
            }
            printf("%-6d +%-6.0f %11.1f%% %13.1f%% %10.1f\n", n, 100.0 * (change[c] - 1.0),
                   100.0 * alone / trials, 100.0 * among / trials,
                   100.0 * sp_ab_mde(se, 2.0 * n - 2.0, THRESHOLD, FDR, 0.8));
        }
    }
    for (int r = 0; r < 3; r++) {
        int aa = 0, edge = 0, called, fp;
        for (int k = 0; k < trials; k++) {
            compare_once(runs[r], POINTS, 0, 1.0, 1.0, &called, &fp);
            aa += fp;
            compare_once(runs[r], POINTS, POINTS, 1.0 + THRESHOLD, 1.0, &called, &fp);
            edge += called > 0;
        }
        printf("# %d runs a side, 50 points: A/A a false call in %.1f%% of comparisons; all at "
               "+3.0%%: called slower in %.1f%%\n",
               runs[r], 100.0 * aa / trials, 100.0 * edge / trials);
    }
    printf("compare power result: done\n");
    return 0;
}
