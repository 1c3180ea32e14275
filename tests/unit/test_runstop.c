/* Unit tests of the stop rule every measurement loop shares (src/runtime/runstop.h): a fixed
 * count, the CI target, the sample cap and the time cap, each the reason a loop stops. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "runstop.h"

#define N 64

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

static void test_fixed_count(void **state)
{
    /* 8: enough samples for a distribution-free 95% CI of the median */
    const sp_stop_rule_t rule = {
        .fixed = 8, .min_samples = 10, .max_samples = 20, .max_time_s = 1.0, .epsilon = 0.01};
    double x[N], scratch[N];
    int converged = -1;

    (void)state;
    steady(x, N);
    assert_int_equal(sp_stop_rule_check(&rule, x, 7, 99.0, scratch, &converged), 0);
    assert_int_equal(converged, 0); /* not reported before the count; no time cap */
    assert_int_equal(sp_stop_rule_check(&rule, x, 8, 0.0, scratch, &converged), 1);
    assert_int_equal(converged, 1); /* reported with the count, below min_samples */
    noisy(x, N);
    assert_int_equal(sp_stop_rule_check(&rule, x, 8, 0.0, scratch, &converged), 1);
    assert_int_equal(converged, 0);
    assert_true(x[1] == 1.0); /* x is not changed */
}

static void test_ci_target(void **state)
{
    const sp_stop_rule_t rule = {
        .fixed = 0, .min_samples = 10, .max_samples = 50, .max_time_s = 10.0, .epsilon = 0.01};
    double x[N], scratch[N];
    int converged = -1;

    (void)state;
    steady(x, N);
    assert_int_equal(sp_stop_rule_check(&rule, x, 9, 0.0, scratch, &converged), 0);
    assert_int_equal(converged, 0); /* fewer than min_samples */
    assert_int_equal(sp_stop_rule_check(&rule, x, 10, 0.0, scratch, &converged), 1);
    assert_int_equal(converged, 1);
    noisy(x, N);
    assert_int_equal(sp_stop_rule_check(&rule, x, 30, 0.0, scratch, &converged), 0);
    assert_int_equal(converged, 0);
}

static void test_caps(void **state)
{
    const sp_stop_rule_t rule = {
        .fixed = 0, .min_samples = 10, .max_samples = 40, .max_time_s = 2.0, .epsilon = 0.01};
    double x[N], scratch[N];
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
        cmocka_unit_test(test_fixed_count),
        cmocka_unit_test(test_ci_target),
        cmocka_unit_test(test_caps),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
