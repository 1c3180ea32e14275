/* Unit tests of the stop rule every measurement loop shares (src/runtime/runstop.h): a fixed
 * count, the CI target (dependence-aware, seqstats.h), the sample cap and the time cap, each the
 * reason a loop stops; a drifting series never converges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "runstop.h"

#define N 400

static double scratch[4 * N + 256];

/* Samples that converge quickly: 100 +- a little. */
static void steady(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        x[i] = 100.0 + (double)(i % 3) * 0.01;
    }
}

/* Samples spread over two orders of magnitude: the CI never gets narrow. */
static void noisy(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        x[i] = (i % 2) ? 1.0 : 100.0 + (double)i;
    }
}

/* A level that rises by rise over the n samples, with +-2% deterministic noise (a drift much
 * larger than the noise reads as strong autocorrelation instead, and never gets enough batches
 * to converge either). */
static void drifting(double *x, size_t n, double rise)
{
    uint32_t s = 12345u;

    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        x[i] = 100.0 * (1.0 + rise * (double)i / (double)n) *
               (1.0 + 0.04 * ((double)(s >> 8) / 16777216.0 - 0.5));
    }
}

static void test_scratch_len(void **state)
{
    (void)state;
    assert_true(sp_stop_rule_scratch_len(N) == sp_seq_scratch_len(N));
    assert_true(sp_stop_rule_scratch_len(N) <= sizeof(scratch) / sizeof(scratch[0]));
}

static void test_fixed_count(void **state)
{
    const sp_stop_rule_t rule = {
        .fixed = 120, .min_samples = 200, .max_samples = 20, .max_time_s = 1.0, .epsilon = 0.01};
    double x[N];
    int converged = -1;

    (void)state;
    steady(x, N);
    assert_int_equal(sp_stop_rule_check(&rule, x, 119, 99.0, scratch, &converged), 0);
    assert_int_equal(converged, 0); /* not reported before the count; no time or sample cap */
    assert_int_equal(sp_stop_rule_check(&rule, x, 120, 0.0, scratch, &converged), 1);
    assert_int_equal(converged, 1); /* reported with the count, below min_samples */
    noisy(x, N);
    assert_int_equal(sp_stop_rule_check(&rule, x, 120, 0.0, scratch, &converged), 1);
    assert_int_equal(converged, 0);
    assert_true(x[1] == 1.0); /* x is not changed */
}

static void test_ci_target(void **state)
{
    const sp_stop_rule_t rule = {
        .fixed = 0, .min_samples = 10, .max_samples = 500, .max_time_s = 10.0, .epsilon = 0.01};
    double x[N];
    int converged = -1;

    (void)state;
    steady(x, N);
    /* an interval needs 10 batches of at least sqrt(n) samples: 100 samples, whatever
     * --min-samples says (the i.i.d. rule stopped this series at 10) */
    assert_int_equal(sp_stop_rule_check(&rule, x, 10, 0.0, scratch, &converged), 0);
    assert_int_equal(converged, 0);
    assert_int_equal(SP_STOP_RULE_MIN_CONVERGED, 100);
    assert_int_equal(sp_stop_rule_check(&rule, x, 99, 0.0, scratch, &converged), 0);
    assert_int_equal(converged, 0);
    assert_int_equal(sp_stop_rule_check(&rule, x, 100, 0.0, scratch, &converged), 1);
    assert_int_equal(converged, 1);
    noisy(x, N);
    assert_int_equal(sp_stop_rule_check(&rule, x, 300, 0.0, scratch, &converged), 0);
    assert_int_equal(converged, 0);
}

/* A 4% rise over the series with a 3% target: the median's interval is narrow enough, but the
 * series drifts by more than epsilon, so the rule never calls it converged. */
static void test_drift_not_converged(void **state)
{
    const sp_stop_rule_t rule = {
        .fixed = 0, .min_samples = 10, .max_samples = 1000, .max_time_s = 10.0, .epsilon = 0.03};
    const sp_stop_rule_t fixed = {
        .fixed = N, .min_samples = 10, .max_samples = 1000, .max_time_s = 10.0, .epsilon = 0.03};
    double x[N];
    sp_seqstats_t s;
    int converged = -1;

    (void)state;
    drifting(x, N, 0.04);
    sp_stop_rule_stats(&rule, x, N, scratch, &s);
    assert_true(s.ci_valid);
    assert_true(sp_seq_rel_halfwidth(&s) <= rule.epsilon); /* the interval alone would stop */
    assert_int_equal(s.drift, 1);
    assert_true(s.trend_p < 0.05);
    assert_true(s.trend_rel > 0.03 && s.trend_rel < 0.05);
    assert_int_equal(sp_stop_rule_converged(&rule, &s), 0);
    assert_int_equal(sp_stop_rule_check(&rule, x, N, 0.0, scratch, &converged), 0);
    assert_int_equal(converged, 0);
    assert_int_equal(sp_stop_rule_check(&fixed, x, N, 0.0, scratch, &converged), 1);
    assert_int_equal(converged, 0);
    /* a rise smaller than epsilon is not drift: the same series at 1% converges */
    drifting(x, N, 0.01);
    sp_stop_rule_stats(&rule, x, N, scratch, &s);
    assert_int_equal(s.drift, 0);
    assert_int_equal(sp_stop_rule_check(&rule, x, N, 0.0, scratch, &converged), 1);
    assert_int_equal(converged, 1);
}

static void test_caps(void **state)
{
    const sp_stop_rule_t rule = {
        .fixed = 0, .min_samples = 10, .max_samples = 40, .max_time_s = 2.0, .epsilon = 0.01};
    double x[N];
    int converged = -1;

    (void)state;
    noisy(x, N);
    assert_int_equal(sp_stop_rule_check(&rule, x, 39, 1.9, scratch, &converged), 0);
    assert_int_equal(sp_stop_rule_check(&rule, x, 40, 1.9, scratch, &converged), 1);
    assert_int_equal(converged, 0); /* stopped by the sample cap, not converged */
    assert_int_equal(sp_stop_rule_check(&rule, x, 12, 2.0, scratch, &converged), 1);
    assert_int_equal(converged, 0); /* stopped by the time cap */
    assert_int_equal(sp_stop_rule_check(&rule, x, 0, 2.5, scratch, NULL), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scratch_len),
        cmocka_unit_test(test_fixed_count),
        cmocka_unit_test(test_ci_target),
        cmocka_unit_test(test_drift_not_converged),
        cmocka_unit_test(test_caps),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
