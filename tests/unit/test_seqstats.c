/* Unit tests of src/base/seqstats.h on hand-computed cases: autocorrelations of short series,
 * Mann-Kendall S and variance, t and normal quantiles against tables, batch sizing, the
 * dependence-aware intervals on constructed series, and the stopping rule's conditions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "seqstats.h"

static void assert_near(double actual, double expected, double abs_tol)
{
    if (!(fabs(actual - expected) <= abs_tol)) {
        print_error("expected %.17g, got %.17g (tolerance %g)\n", expected, actual, abs_tol);
        fail();
    }
}

static void test_autocorr_hand(void **state)
{
    /* 1..5: deviations -2 -1 0 1 2, sum of squares 10; lag 1: 2+0+0+2 = 4; lag 2: 0-1+0 = -1 */
    static const double ramp[] = {1, 2, 3, 4, 5};
    static const double alt[] = {1, -1, 1, -1};
    static const double flat[] = {7, 7, 7};

    (void)state;
    assert_near(sp_seq_autocorr(ramp, 5, 1), 0.4, 1e-15);
    assert_near(sp_seq_autocorr(ramp, 5, 2), -0.1, 1e-15);
    assert_near(sp_seq_autocorr(alt, 4, 1), -0.75, 1e-15); /* -3 / 4 */
    assert_near(sp_seq_autocorr(flat, 3, 1), 0.0, 0.0);
    assert_near(sp_seq_autocorr(ramp, 5, 5), 0.0, 0.0);
}

static void test_lag1_sign_hand(void **state)
{
    /* below 3.5: 1 1 1 0 0 0, centered +-1/2: sum of squares 1.5, lag-1 sum 0.75, r_s = 1/2,
     * on the Gaussian scale sin(pi/4) */
    double up[] = {1, 2, 3, 4, 5, 6};
    /* 1 0 1 0: r_s = -0.75 / 1 */
    static const double alt[] = {1, 9, 1, 9};

    (void)state;
    assert_near(sp_seq_lag1_sign(up, 6, 3.5), sqrt(0.5), 1e-15);
    up[5] = 1e12; /* an outlier on the same side changes nothing */
    assert_near(sp_seq_lag1_sign(up, 6, 3.5), sqrt(0.5), 1e-15);
    assert_near(sp_seq_lag1_sign(alt, 4, 5.0), sin(-0.375 * 3.14159265358979323846), 1e-15);
    assert_near(sp_seq_lag1_sign(alt, 1, 5.0), 0.0, 0.0);
}

static void test_mann_kendall_hand(void **state)
{
    static const double up[] = {1, 2, 3, 4, 5};
    static const double ties[] = {1, 2, 2, 3};
    static const double three[] = {3, 1, 2};
    static const double flat[] = {4, 4, 4, 4};
    double s;
    double var;
    double p;

    (void)state;
    /* all 10 pairs rise; var = 5*4*15/18; z = (10-1)/sqrt(var) = 2.2045, p = 0.027486 */
    sp_seq_mann_kendall(up, 5, &s, &var, &p);
    assert_near(s, 10.0, 0.0);
    assert_near(var, 300.0 / 18.0, 1e-12);
    assert_near(p, 0.0274863, 1e-6);
    /* 5 rising pairs, one tie; var = (4*3*13 - 2*1*9) / 18 */
    sp_seq_mann_kendall(ties, 4, &s, &var, &p);
    assert_near(s, 5.0, 0.0);
    assert_near(var, 138.0 / 18.0, 1e-12);
    /* -1 -1 +1: S = -1 is within the continuity correction, p = 1 */
    sp_seq_mann_kendall(three, 3, &s, &var, &p);
    assert_near(s, -1.0, 0.0);
    assert_near(var, 66.0 / 18.0, 1e-12);
    assert_near(p, 1.0, 1e-15);
    /* one group of 4 ties: no information, variance 0, p = 1 */
    sp_seq_mann_kendall(flat, 4, &s, &var, &p);
    assert_near(s, 0.0, 0.0);
    assert_near(var, 0.0, 1e-12);
    assert_near(p, 1.0, 0.0);
}

static void test_quantiles_table(void **state)
{
    /* Student's t, 0.975, from the published tables */
    static const double df[] = {1, 2, 3, 4, 9, 29, 100};
    static const double t975[] = {12.706205, 4.302653, 3.182446, 2.776445,
                                  2.262157,  2.045230, 1.983972};

    (void)state;
    assert_near(sp_seq_norm_quantile(0.975), 1.959963984540054, 1e-12);
    assert_near(sp_seq_norm_quantile(0.025), -1.959963984540054, 1e-12);
    assert_near(sp_seq_norm_quantile(0.5), 0.0, 1e-15);
    assert_near(sp_seq_norm_quantile(0.999), 3.090232306167813, 1e-10);
    for (size_t i = 0; i < sizeof(df) / sizeof(df[0]); i++) {
        assert_near(sp_seq_t_quantile(0.975, df[i]), t975[i], 1e-6);
        assert_near(sp_seq_t_quantile(0.025, df[i]), -t975[i], 1e-6);
    }
    assert_near(sp_seq_t_quantile(0.995, 9), 3.249836, 1e-6);
}

static void test_sign_tau_and_batch_len(void **state)
{
    int enough = -1;

    (void)state;
    /* 1 + (4/pi) sum_k asin(r^k), summed to convergence independently */
    assert_near(sp_seq_sign_tau(0.0), 1.0, 1e-15);
    assert_near(sp_seq_sign_tau(-0.3), 1.0, 1e-15);
    assert_near(sp_seq_sign_tau(0.5), 2.30718, 2e-3);
    assert_near(sp_seq_sign_tau(0.9), 13.2789, 2e-2);
    /* sqrt(100) = 10 beats 2 tau = 2: 10 batches of 10 */
    assert_int_equal(sp_seq_batch_len(100, 0.0, &enough), 10);
    assert_int_equal(enough, 1);
    /* ceil(sqrt(50)) = 8 leaves 6 batches: lowered to 50/10 = 5, not enough */
    assert_int_equal(sp_seq_batch_len(50, 0.0, &enough), 5);
    assert_int_equal(enough, 0);
    /* r 0.9: tau 19, 2 tau = 38 > ceil(sqrt(1000)) = 32: 26 batches */
    assert_int_equal(sp_seq_batch_len(1000, 0.9, &enough), 38);
    assert_int_equal(enough, 1);
    assert_int_equal(sp_seq_batch_len(1000, -0.5, &enough), 32);
    assert_int_equal(sp_seq_batch_len(5, 0.0, &enough), 1);
    assert_int_equal(enough, 0);
}

/* Places the values 1..50 ("low") and 51..100 ("high") in time order following pattern[] ('L'
 * or 'H'), lows and highs each in increasing order. */
static void fill_pattern(double *x, const char *pattern)
{
    int lo = 1;
    int hi = 51;

    for (size_t t = 0; t < 100; t++) {
        x[t] = pattern[t] == 'L' ? lo++ : hi++;
    }
}

static void test_batch_ci_balanced(void **state)
{
    char pattern[101];
    double x[100];
    double *scratch = malloc(sp_seq_scratch_len(100) * sizeof(*scratch));
    sp_seq_params_t p = sp_seq_params_default();
    sp_seqstats_t s;

    (void)state;
    assert_non_null(scratch);
    /* L H L H ...: lag-1 negative, so tau 1, batches of sqrt(100) = 10, each with 5 lows: the
     * batch variance 0 is floored at the i.i.d. 1/4, h = t_9 * sqrt(100/4) = 11.31, ranks
     * floor(50.5 - 11.31) = 39 and 62 */
    for (size_t t = 0; t < 100; t++) {
        pattern[t] = t % 2 ? 'H' : 'L';
    }
    fill_pattern(x, pattern);
    sp_seq_analyze(x, 100, &p, scratch, &s);
    assert_int_equal(s.n, 100);
    assert_int_equal(s.batches, 10);
    assert_int_equal(s.batch_len, 10);
    assert_true(s.enough_batches);
    assert_true(s.lag1 < -0.99);
    assert_near(s.median, 50.5, 0.0);
    assert_true(s.ci_valid);
    assert_near(s.med_lo, 39.0, 0.0);
    assert_near(s.med_hi, 62.0, 0.0);
    assert_near(s.n_eff, 100.0, 1e-12);
    /* batch means 5k + 28: sum 10 (5k - 22.5)^2 / 9 = 2291.67 > s^2 = 841.67 */
    assert_near(s.mean, 50.5, 1e-12);
    assert_near(s.mean_hi - s.mean, sp_seq_t_quantile(0.975, 9) * sqrt(20625.0 / 9.0 / 100.0),
                1e-9);
    /* trend batches of 2 = 2 tau: medians 26, 27, ..., 75 all rise; S = 50*49/2, slope 1/2 per
     * sample, 0.5 * 100 / 50.5 over the series */
    assert_near(s.mk_s, 1225.0, 0.0);
    assert_near(s.mk_var, 50.0 * 49.0 * 105.0 / 18.0, 1e-9);
    assert_true(s.trend_p < 1e-10);
    assert_near(s.trend_rel, 50.0 / 50.5, 1e-12);
    assert_true(s.drift);
    free(scratch);
}

static void test_batch_ci_unbalanced(void **state)
{
    static const char even[] = "LHLHLHLLLL"; /* 7 lows */
    static const char odd[] = "HLHLHLHHHH";  /* 3 lows */
    char pattern[101];
    double x[100];
    double *scratch = malloc(sp_seq_scratch_len(100) * sizeof(*scratch));
    sp_seq_params_t p = sp_seq_params_default();
    sp_seqstats_t s;

    (void)state;
    assert_non_null(scratch);
    for (size_t k = 0; k < 10; k++) {
        memcpy(pattern + 10 * k, k % 2 ? odd : even, 10);
    }
    fill_pattern(x, pattern);
    /* lag-1 of the indicators is -0.39, so tau 1; batch fractions 0.7 0.3 0.7 ...: variance
     * 10 * 10 * 0.2^2 / 9 = 0.444 > 1/4, h = t_9 sqrt(44.4) = 15.08, ranks 35 and 66 */
    sp_seq_analyze(x, 100, &p, scratch, &s);
    assert_near(s.lag1, sin(-0.39 * 3.14159265358979323846 / 2.0), 1e-12);
    assert_int_equal(s.batches, 10);
    assert_near(s.n_eff, 100.0 * 0.25 / (4.0 / 9.0), 1e-9);
    assert_near(s.med_lo, 35.0, 0.0);
    assert_near(s.med_hi, 66.0, 0.0);
    assert_near(sp_seq_rel_halfwidth(&s), 15.5 / 50.5, 1e-12);
    free(scratch);
}

static void test_analyze_short(void **state)
{
    static const double one[] = {3.0};
    static const double two[] = {4.0, 2.0};
    double scratch[128];
    sp_seq_params_t p = sp_seq_params_default();
    sp_seqstats_t s;

    (void)state;
    assert_true(sp_seq_scratch_len(2) <= 128);
    sp_seq_analyze(one, 1, &p, scratch, &s);
    assert_near(s.median, 3.0, 0.0);
    assert_false(s.ci_valid);
    assert_false(s.enough_batches);
    assert_near(s.med_lo, 3.0, 0.0);
    assert_true(isinf(sp_seq_rel_halfwidth(&s)));
    sp_seq_analyze(two, 2, &p, scratch, &s);
    assert_near(s.median, 3.0, 0.0);
    assert_false(s.ci_valid);
    assert_near(s.med_lo, 2.0, 0.0);
    assert_near(s.med_hi, 4.0, 0.0);
    assert_false(s.drift);
    assert_false(sp_seq_converged(&s, 1, 1.0));
    sp_seq_analyze(one, 0, &p, scratch, &s);
    assert_true(isnan(s.median));
    assert_false(s.ci_valid);
    assert_false(sp_seq_converged(&s, 0, 1.0));
}

static void test_batch_len_uneven(void **state)
{
    double x[131];
    double *scratch = malloc(sp_seq_scratch_len(131) * sizeof(*scratch));
    sp_seq_params_t p = sp_seq_params_default();
    sp_seqstats_t s;

    (void)state;
    assert_non_null(scratch);
    /* alternating, so tau 1: ceil(sqrt(131)) = 12 gives 10 batches of 13 or 14 samples */
    for (size_t t = 0; t < 131; t++) {
        x[t] = t % 2 ? 200.0 + (double)t : 100.0 - (double)t;
    }
    sp_seq_analyze(x, 131, &p, scratch, &s);
    assert_int_equal(s.batches, 10);
    assert_int_equal(s.batch_len, 13);
    assert_true(s.enough_batches);
    free(scratch);
}

/* For every n up to 400 and three kinds of series: x is left as it was, nothing is written past
 * sp_seq_scratch_len(n), and a second call gives the same result bit for bit. */
static void test_scratch_bounds_and_determinism(void **state)
{
    enum { N = 400, CANARY = 8 };
    double *x = malloc(N * sizeof(*x));
    double *copy = malloc(N * sizeof(*copy));
    double *scratch = malloc((sp_seq_scratch_len(N) + CANARY) * sizeof(*scratch));
    sp_seq_params_t p = sp_seq_params_default();

    (void)state;
    assert_non_null(x);
    assert_non_null(copy);
    assert_non_null(scratch);
    for (int kind = 0; kind < 3; kind++) {
        for (size_t n = 1; n <= N; n++) {
            size_t len = sp_seq_scratch_len(n);
            sp_seqstats_t a;
            sp_seqstats_t b;

            for (size_t t = 0; t < n; t++) {
                double ramp = (double)t;
                double wave = (double)((t * 7919u) % 101u);

                x[t] = kind == 0 ? wave : (kind == 1 ? 50.0 + ramp : 10.0 + (double)(t / 25 % 2));
            }
            memcpy(copy, x, n * sizeof(*x));
            for (size_t i = 0; i < CANARY; i++) {
                scratch[len + i] = -12345.0;
            }
            sp_seq_analyze(x, n, &p, scratch, &a);
            sp_seq_analyze(x, n, &p, scratch, &b);
            assert_memory_equal(x, copy, n * sizeof(*x));
            for (size_t i = 0; i < CANARY; i++) {
                assert_true(scratch[len + i] == -12345.0);
            }
            assert_memory_equal(&a, &b, sizeof(a));
            assert_true(a.med_lo <= a.median && a.median <= a.med_hi);
        }
    }
    free(scratch);
    free(copy);
    free(x);
}

static void test_converged_conditions(void **state)
{
    sp_seqstats_t ok;
    sp_seqstats_t s;

    (void)state;
    memset(&ok, 0, sizeof(ok));
    ok.n = 100;
    ok.enough_batches = 1;
    ok.ci_valid = 1;
    ok.median = 100.0;
    ok.med_lo = 99.5;
    ok.med_hi = 101.0; /* half-width 1% on the upper side */
    ok.trend_p = 0.5;
    ok.trend_rel = 0.05;
    assert_near(sp_seq_rel_halfwidth(&ok), 0.01, 1e-15);
    assert_true(sp_seq_converged(&ok, 100, 0.01));
    assert_false(sp_seq_converged(&ok, 101, 0.01));  /* too few samples */
    assert_false(sp_seq_converged(&ok, 100, 0.009)); /* too wide */
    s = ok;
    s.enough_batches = 0;
    assert_false(sp_seq_converged(&s, 100, 0.01));
    s = ok;
    s.ci_valid = 0;
    assert_false(sp_seq_converged(&s, 100, 0.01));
    s = ok;
    s.drift = 1;
    assert_false(sp_seq_converged(&s, 100, 0.01));
    /* a hint of a trend (p below SP_SEQ_STOP_ALPHA) stops the point only when the change
     * reaches epsilon */
    s = ok;
    s.trend_p = 0.2;
    assert_false(sp_seq_converged(&s, 100, 0.01));
    s.trend_rel = -0.005;
    assert_true(sp_seq_converged(&s, 100, 0.01));
}

int main(void)
{
    /* clang-format off */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_autocorr_hand),
        cmocka_unit_test(test_lag1_sign_hand),
        cmocka_unit_test(test_mann_kendall_hand),
        cmocka_unit_test(test_quantiles_table),
        cmocka_unit_test(test_sign_tau_and_batch_len),
        cmocka_unit_test(test_batch_ci_balanced),
        cmocka_unit_test(test_batch_ci_unbalanced),
        cmocka_unit_test(test_analyze_short),
        cmocka_unit_test(test_batch_len_uneven),
        cmocka_unit_test(test_scratch_bounds_and_determinism),
        cmocka_unit_test(test_converged_conditions),
    };
    /* clang-format on */

    return cmocka_run_group_tests(tests, NULL, NULL);
}
