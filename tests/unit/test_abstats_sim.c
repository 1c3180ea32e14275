/* Calibration of compare's verdicts over repeated runs (issue 14), simulated through the project's
 * own functions (sp_stats_median, sp_ab_min_effect, sp_ab_verdicts) with fixed seeds: 50 points,
 * 5 runs a side, each run's points shifted by a 2% log-normal run effect (common to the run's
 * points, or independent per point), 11 samples per point with 1% noise; threshold 3%, FDR 0.05.
 * A/A must give a false call (slower or faster) in at most 5% of comparisons, and 50 points all
 * exactly +3.0% must be called slower in at most 5%. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <math.h>

#include "abstats.h"
#include "stats.h"

#define POINTS 50
#define SAMPLES 11
#define MAX_RUNS 10
#define TRIALS 1000

typedef struct {
    uint64_t s;
} rng_t;

static double uniform(rng_t *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return ((double)((r->s * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(rng_t *r)
{
    return sqrt(-2.0 * log(uniform(r))) * cos(6.283185307179586 * uniform(r));
}

/* One run's medians of every point: a run effect (run-to-run spread), common to the run's points
 * or drawn anew per point, then within-run sample noise; `shift` multiplies the true time. */
static void run_medians(rng_t *r, double shift, double run_cv, int common, double *med)
{
    double effect = run_cv * normal(r), x[SAMPLES], scratch[SAMPLES];

    for (int p = 0; p < POINTS; p++) {
        if (!common && p > 0) {
            effect = run_cv * normal(r);
        }
        for (int k = 0; k < SAMPLES; k++) {
            x[k] = 100.0 * shift * exp(effect + 0.01 * normal(r));
        }
        med[p] = sp_stats_median(x, SAMPLES, scratch);
    }
}

/* One comparison of n runs a side; counts of points called slower and faster. */
static void compare_once(rng_t *r, int n, double shift, int common, int *slower_p, int *faster_p)
{
    double a[MAX_RUNS][POINTS], b[MAX_RUNS][POINTS], va[MAX_RUNS], vb[MAX_RUNS];
    sp_ab_mintest_t t[POINTS];
    sp_ab_verdict_t v[POINTS];

    for (int i = 0; i < n; i++) {
        run_medians(r, 1.0, 0.02, common, a[i]);
        run_medians(r, shift, 0.02, common, b[i]);
    }
    for (int p = 0; p < POINTS; p++) {
        for (int i = 0; i < n; i++) {
            va[i] = a[i][p];
            vb[i] = b[i][p];
        }
        assert_int_equal(
            sp_ab_min_effect(va, (size_t)n, vb, (size_t)n, 0.03, 0.05, 0.8, 0.95, &t[p]), SP_OK);
    }
    assert_int_equal(sp_ab_verdicts(t, POINTS, 0.05, NULL, NULL, v), SP_OK);
    *slower_p = *faster_p = 0;
    for (int p = 0; p < POINTS; p++) {
        *slower_p += v[p] == SP_AB_SLOWER;
        *faster_p += v[p] == SP_AB_FASTER;
    }
}

static const char *const effect_name[2] = {"per point", "common to the run"};

static void test_aa_false_calls(void **state)
{
    (void)state;
    for (int common = 0; common < 2; common++) {
        rng_t r = {20261203u + (uint64_t)common};
        int any = 0;
        for (int k = 0; k < TRIALS; k++) {
            int slow, fast;
            compare_once(&r, 5, 1.0, common, &slow, &fast);
            any += slow + fast > 0;
        }
        printf("# A/A 5 vs 5, 2%% run-to-run (%s), 50 points, threshold 3%%: a false call in %d "
               "of %d comparisons\n",
               effect_name[common], any, TRIALS);
        assert_true(any <= TRIALS / 20);
    }
}

static void test_at_threshold(void **state)
{
    (void)state;
    for (int common = 0; common < 2; common++) {
        rng_t r = {4242u + (uint64_t)common};
        int any = 0, points = 0;
        for (int k = 0; k < TRIALS; k++) {
            int slow, fast;
            compare_once(&r, 5, 1.03, common, &slow, &fast);
            any += slow > 0;
            points += slow;
        }
        printf("# 50 points all +3.0%%, 5 vs 5 (run effect %s), threshold 3%%: called slower in "
               "%d of %d comparisons (%d of %d points)\n",
               effect_name[common], any, TRIALS, points, TRIALS * POINTS);
        assert_true(any <= TRIALS / 20);
    }
}

/* The same simulation can call: a +10% change at every point is found in most comparisons (a
 * guard that the calibration above does not pass by never calling anything). */
static void test_finds_ten_percent(void **state)
{
    rng_t r = {777u};
    int found = 0;

    (void)state;
    for (int k = 0; k < 100; k++) {
        int slow, fast;
        compare_once(&r, 5, 1.10, 0, &slow, &fast);
        found += slow == POINTS;
    }
    printf("# 50 points all +10%%, 5 vs 5: all 50 called slower in %d of 100\n", found);
    assert_true(found >= 80);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aa_false_calls),
        cmocka_unit_test(test_at_threshold),
        cmocka_unit_test(test_finds_ten_percent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
