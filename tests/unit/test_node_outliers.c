/* Unit tests of node/node_outliers.h: the outlier rule of `scaleprobe node` over synthetic
 * per-rank samples (a rank at half speed is flagged, a uniform cohort and a 3% dip are not) and
 * its edge cases (one unit, bad threshold, node-sized cohorts). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "node_outliers.h"

#define NRANKS 8
#define NSAMPLES 30

/* Samples of a rank whose true rate is base: a deterministic +-2% spread around it. */
static void samples_of(double base, unsigned seed, double *out)
{
    for (size_t i = 0; i < NSAMPLES; i++) {
        unsigned k = (unsigned)(i * 7u + seed * 3u) % 11u;
        out[i] = base * (1.0 + ((double)k - 5.0) * 0.004);
    }
}

/* Estimates of NRANKS ranks at the given rates, the verdicts and the count flagged. */
static size_t run(const double *rates, size_t n, double threshold, sp_node_verdict_t *v,
                  double *cohort_p)
{
    sp_node_est_t est[NRANKS];
    double samples[NSAMPLES];
    double scratch[NSAMPLES > NRANKS ? NSAMPLES : NRANKS];
    size_t nflag = 99;

    for (size_t r = 0; r < n; r++) {
        samples_of(rates[r], (unsigned)r, samples);
        sp_node_estimate(samples, NSAMPLES, scratch, &est[r]);
        assert_true(est[r].ci_lo <= est[r].median && est[r].median <= est[r].ci_hi);
    }
    assert_int_equal(sp_node_outliers(est, n, threshold, scratch, v, cohort_p, &nflag), SP_OK);
    return nflag;
}

static void test_half_speed_rank_is_flagged(void **state)
{
    double rates[NRANKS] = {100, 101, 99, 100, 50, 100, 102, 98};
    sp_node_verdict_t v[NRANKS];
    double cohort = 0.0;

    (void)state;
    assert_int_equal(run(rates, NRANKS, 0.10, v, &cohort), 1);
    assert_true(fabs(cohort - 100.0) < 1.5);
    for (int r = 0; r < NRANKS; r++) {
        assert_int_equal(v[r].flagged, r == 4);
    }
    /* the effect size: about 0.5, with a CI around it that excludes 0.9 */
    assert_true(fabs(v[4].ratio - 0.5) < 0.02);
    assert_true(v[4].ratio_lo <= v[4].ratio && v[4].ratio <= v[4].ratio_hi);
    assert_true(v[4].ratio_hi < 0.9);
}

static void test_uniform_cohort_has_none(void **state)
{
    double rates[NRANKS] = {100, 100, 100, 100, 100, 100, 100, 100};
    sp_node_verdict_t v[NRANKS];
    double cohort = 0.0;

    (void)state;
    assert_int_equal(run(rates, NRANKS, 0.10, v, &cohort), 0);
    for (int r = 0; r < NRANKS; r++) {
        assert_int_equal(v[r].flagged, 0);
        assert_true(fabs(v[r].ratio - 1.0) < 0.02);
    }
}

static void test_small_dip_is_not_flagged(void **state)
{
    double rates[NRANKS] = {100, 100, 97, 100, 100, 100, 100, 100};
    sp_node_verdict_t v[NRANKS];
    double cohort = 0.0;

    (void)state;
    assert_int_equal(run(rates, NRANKS, 0.10, v, &cohort), 0);
    assert_true(fabs(v[2].ratio - 0.97) < 0.01);
    /* the same dip is flagged once the threshold is below it */
    assert_int_equal(run(rates, NRANKS, 0.01, v, &cohort), 1);
    assert_int_equal(v[2].flagged, 1);
}

static void test_ci_overlapping_threshold_is_not_flagged(void **state)
{
    /* median below 0.9 but the CI reaches above it: not significant */
    sp_node_est_t est[3] = {{100, 99, 101}, {100, 99, 101}, {88, 80, 95}};
    sp_node_verdict_t v[3];
    double scratch[3];
    double cohort = 0.0;
    size_t nflag = 0;

    (void)state;
    assert_int_equal(sp_node_outliers(est, 3, 0.1, scratch, v, &cohort, &nflag), SP_OK);
    assert_int_equal(nflag, 0);
    assert_true(fabs(v[2].ratio - 0.88) < 1e-12);
    est[2].ci_hi = 89.0;
    assert_int_equal(sp_node_outliers(est, 3, 0.1, scratch, v, &cohort, &nflag), SP_OK);
    assert_int_equal(nflag, 1);
    assert_true(fabs(v[2].ratio_hi - 0.89) < 1e-12);
}

static void test_edges(void **state)
{
    sp_node_est_t one = {50, 49, 51};
    sp_node_est_t two[2] = {{100, 99, 101}, {50, 49, 51}};
    sp_node_verdict_t v[2];
    double scratch[2];
    double cohort = 0.0;
    size_t nflag = 7;

    (void)state;
    /* one unit is its own cohort */
    assert_int_equal(sp_node_outliers(&one, 1, 0.1, scratch, v, &cohort, &nflag), SP_OK);
    assert_int_equal(nflag, 0);
    assert_true(fabs(v[0].ratio - 1.0) < 1e-12);
    /* two units: the cohort median is their mean, and the slow one lies below it */
    assert_int_equal(sp_node_outliers(two, 2, 0.1, scratch, v, &cohort, &nflag), SP_OK);
    assert_true(fabs(cohort - 75.0) < 1e-12);
    assert_int_equal(nflag, 1);
    assert_int_equal(v[1].flagged, 1);
    assert_int_equal(v[0].flagged, 0);
    assert_int_equal(sp_node_outliers(two, 2, 0.0, scratch, v, &cohort, &nflag), SP_ERR_INVALID);
    assert_int_equal(sp_node_outliers(two, 2, 1.0, scratch, v, &cohort, &nflag), SP_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_half_speed_rank_is_flagged),
        cmocka_unit_test(test_uniform_cohort_has_none),
        cmocka_unit_test(test_small_dip_is_not_flagged),
        cmocka_unit_test(test_ci_overlapping_threshold_is_not_flagged),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
