/* Unit tests of src/base/stats.h: the median's order-statistic CI (checked against binomial CDFs
 * computed here independently, exactly where integers allow), summaries of known data, and the
 * stopping rule. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "stats.h"

static void assert_same(double actual, double expected)
{
    if (!(actual == expected)) {
        print_error("expected %.17g, got %.17g\n", expected, actual);
        fail();
    }
}

static void assert_close(double actual, double expected, double rel)
{
    if (!(fabs(actual - expected) <= rel * fabs(expected))) {
        print_error("expected %.17g, got %.17g (relative tolerance %g)\n", expected, actual, rel);
        fail();
    }
}

/* ---- independent references ---- */

/* cum[k] = sum_{i<=k} C(n, i), exact in 64 bits for n <= 60 (the total is 2^n). */
static void binom_cum_exact(unsigned n, uint64_t *cum)
{
    uint64_t c = 1;
    uint64_t sum = 0;

    for (unsigned k = 0; k <= n; k++) {
        sum += c;
        cum[k] = sum;
        c = c * (n - k) / (k + 1); /* C(n,k+1) = C(n,k)(n-k)/(k+1), exact in this order */
    }
}

/* Largest l with P(B(n,1/2) <= l-1) <= 1/tail_den, 0 when none; exact integers for n <= 59.
 * P(B <= k) <= 1/b  <=>  cum[k] <= 2^n / b  <=>  cum[k] <= floor(2^n / b), cum[k] an integer. */
static unsigned exact_ci_l(unsigned n, uint64_t tail_den)
{
    uint64_t cum[61];
    uint64_t limit = (1ull << n) / tail_den;
    unsigned l = 0;

    binom_cum_exact(n, cum);
    for (unsigned k = 0; 2 * (k + 1) <= n + 1; k++) {
        if (cum[k] > limit) {
            break;
        }
        l = k + 1;
    }
    return l;
}

/* P(B(n,1/2) <= k) for larger n, with log C(n,i) built up by a running sum of logs (not lgamma,
 * which the code uses). */
static double binom_cdf_ref(size_t n, size_t k)
{
    long double logc = 0.0L; /* log C(n, 0) */
    long double sum = 0.0L;
    long double log_half_n = (long double)n * logl(0.5L);

    for (size_t i = 0; i <= k; i++) {
        sum += expl(logc + log_half_n);
        logc += logl((long double)(n - i)) - logl((long double)(i + 1));
    }
    return (double)sum;
}

/* ---- CI ranks ---- */

static void test_ci_reference_is_right(void **state)
{
    uint64_t cum[61];

    (void)state;
    /* the reference itself, on values anyone can check: C(10,k) = 1 10 45 120 ... */
    binom_cum_exact(10, cum);
    assert_int_equal(cum[0], 1);
    assert_int_equal(cum[1], 11);
    assert_int_equal(cum[2], 56);
    assert_int_equal(cum[3], 176);
    assert_int_equal(cum[10], 1024);
    binom_cum_exact(60, cum);
    assert_true(cum[60] == (1ull << 60));
    /* C(20,0..6) sums to 60460: P(B(20) <= 6) = 0.0577 > 0.025, P(<= 5) = 21700/2^20 = 0.0207 */
    binom_cum_exact(20, cum);
    assert_int_equal(cum[5], 21700);
    assert_int_equal(cum[6], 60460);
}

typedef struct {
    size_t n;
    size_t l;
    size_t u;
} ci_row_t;

static void test_ci_known_values_95(void **state)
{
    /* the published distribution-free table for 95% */
    static const ci_row_t rows[] = {
        {6, 1, 6}, {10, 2, 9}, {20, 6, 15}, {50, 18, 33}, {100, 40, 61},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        size_t l = 0;
        size_t u = 0;

        /* first confirm the table row from the binomial itself */
        if (rows[i].n <= 60) {
            assert_int_equal(exact_ci_l((unsigned)rows[i].n, 40), rows[i].l);
        } else {
            assert_true(binom_cdf_ref(rows[i].n, rows[i].l - 1) <= 0.025);
            assert_true(binom_cdf_ref(rows[i].n, rows[i].l) > 0.025);
        }
        assert_int_equal(rows[i].u, rows[i].n - rows[i].l + 1);

        assert_int_equal(sp_stats_median_ci_ranks(rows[i].n, 0.95, &l, &u), SP_OK);
        assert_int_equal(l, rows[i].l);
        assert_int_equal(u, rows[i].u);
    }
}

static void test_ci_too_few_samples(void **state)
{
    (void)state;
    for (size_t n = 1; n < 6; n++) {
        size_t l = 99;
        size_t u = 99;

        assert_int_equal(exact_ci_l((unsigned)n, 40), 0); /* the reference agrees */
        assert_int_equal(sp_stats_median_ci_ranks(n, 0.95, &l, &u), SP_ERR_INVALID);
        assert_int_equal(l, 1);
        assert_int_equal(u, n);
    }
}

static void test_ci_matches_exact_for_every_small_n(void **state)
{
    /* 95%: tail 1/40; 99%: tail 1/200; 90%: tail 1/20 */
    static const struct {
        double conf;
        uint64_t den;
    } levels[] = {{0.95, 40}, {0.99, 200}, {0.90, 20}};

    (void)state;
    for (size_t c = 0; c < sizeof(levels) / sizeof(levels[0]); c++) {
        for (unsigned n = 1; n <= 59; n++) {
            unsigned want = exact_ci_l(n, levels[c].den);
            size_t l = 0;
            size_t u = 0;
            sp_status_t st = sp_stats_median_ci_ranks(n, levels[c].conf, &l, &u);

            if (want == 0) {
                assert_int_equal(st, SP_ERR_INVALID);
            } else {
                assert_int_equal(st, SP_OK);
                assert_int_equal(l, want);
                assert_int_equal(u, n - want + 1);
            }
        }
    }
    /* spot values at 99% (one tail 0.005): n = 7 is too small (P(B <= 0) = 1/128), n = 8 gives
     * l = 1 (1/256), n = 20 gives l = 4 (P(B <= 3) = 1351/2^20, P(B <= 4) = 6196/2^20) */
    {
        size_t l;
        size_t u;
        assert_int_equal(sp_stats_median_ci_ranks(7, 0.99, &l, &u), SP_ERR_INVALID);
        assert_int_equal(sp_stats_median_ci_ranks(8, 0.99, &l, &u), SP_OK);
        assert_int_equal(l, 1);
        assert_int_equal(u, 8);
        assert_int_equal(sp_stats_median_ci_ranks(20, 0.99, &l, &u), SP_OK);
        assert_int_equal(l, 4);
        assert_int_equal(u, 17);
    }
}

static void test_ci_large_n_is_the_largest_valid_l(void **state)
{
    static const size_t ns[] = {60, 61, 100, 101, 199, 200, 500, 1000, 2000};

    (void)state;
    for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        size_t n = ns[i];
        size_t l = 0;
        size_t u = 0;

        assert_int_equal(sp_stats_median_ci_ranks(n, 0.95, &l, &u), SP_OK);
        assert_int_equal(u, n - l + 1);
        assert_true(binom_cdf_ref(n, l - 1) <= 0.025);
        assert_true(binom_cdf_ref(n, l) > 0.025);
        /* normal approximation: l ~ n/2 - 0.98 sqrt(n), within a couple of ranks */
        assert_true(fabs((double)l - ((double)n / 2.0 - 0.98 * sqrt((double)n))) < 2.5);
    }
}

static void test_ci_coverage(void **state)
{
    (void)state;
    /* exact values: n = 6, l = 1: 1 - 2/64; n = 10, l = 2: 1 - 22/1024 */
    assert_close(sp_stats_median_ci_coverage(6, 1), 1.0 - 2.0 / 64.0, 1e-12);
    assert_close(sp_stats_median_ci_coverage(10, 2), 1.0 - 22.0 / 1024.0, 1e-12);
    assert_close(sp_stats_median_ci_coverage(20, 6), 1.0 - 2.0 * 21700.0 / 1048576.0, 1e-12);

    for (size_t n = 6; n <= 300; n++) {
        size_t l;
        size_t u;

        assert_int_equal(sp_stats_median_ci_ranks(n, 0.95, &l, &u), SP_OK);
        assert_true(sp_stats_median_ci_coverage(n, l) >= 0.95);
        /* one rank tighter would fall short, unless the interval would be empty */
        if (2 * (l + 1) <= n + 1) {
            assert_true(sp_stats_median_ci_coverage(n, l + 1) < 0.95);
        }
        assert_close(sp_stats_median_ci_coverage(n, l), 1.0 - 2.0 * binom_cdf_ref(n, l - 1), 1e-9);
    }
    /* l = 0 or an interval past the middle covers nothing */
    assert_same(sp_stats_median_ci_coverage(10, 0), 0.0);
    assert_same(sp_stats_median_ci_coverage(10, 6), 0.0);
}

/* ---- median and summary ---- */

static void test_median(void **state)
{
    const double odd[] = {5.0, 1.0, 4.0, 2.0, 3.0};
    const double even[] = {4.0, 1.0, 3.0, 2.0};
    const double one[] = {7.5};
    double scratch[8];

    (void)state;
    assert_same(sp_stats_median(odd, 5, scratch), 3.0);
    assert_same(sp_stats_median(even, 4, scratch), 2.5);
    assert_same(sp_stats_median(one, 1, scratch), 7.5);
    assert_true(isnan(sp_stats_median(odd, 0, scratch)));
    /* the input is left as it was */
    assert_same(odd[0], 5.0);
    assert_same(odd[4], 3.0);
}

static void test_summary_small_odd(void **state)
{
    const double samples[] = {5.0, 1.0, 4.0, 2.0, 3.0};
    double scratch[5];
    sp_summary_t s;

    (void)state;
    sp_stats_summarize(samples, 5, scratch, &s);
    assert_int_equal(s.n, 5);
    assert_same(s.median, 3.0);
    assert_same(s.mean, 3.0);
    assert_close(s.stddev, 1.5811388300841898, 1e-15); /* sqrt(10/4) */
    assert_same(s.min, 1.0);
    assert_same(s.max, 5.0);
    assert_same(s.p99, 5.0);
    /* too few samples for 95%: not valid, the interval is the whole range */
    assert_int_equal(s.ci_valid, 0);
    assert_same(s.ci_lo, 1.0);
    assert_same(s.ci_hi, 5.0);
    assert_same(samples[0], 5.0); /* not sorted in place when scratch is separate */
}

static void test_summary_ten(void **state)
{
    double samples[] = {10.0, 3.0, 7.0, 1.0, 9.0, 2.0, 8.0, 4.0, 6.0, 5.0};
    sp_summary_t s;

    (void)state;
    /* scratch aliasing samples is allowed: samples are then sorted */
    sp_stats_summarize(samples, 10, samples, &s);
    assert_int_equal(s.n, 10);
    assert_same(s.median, 5.5);
    assert_same(s.mean, 5.5);
    assert_close(s.stddev, 3.0276503540974917, 1e-15); /* sqrt(82.5/9) */
    assert_same(s.min, 1.0);
    assert_same(s.max, 10.0);
    assert_same(s.p99, 10.0); /* x_(ceil(9.9)) = x_10 */
    assert_int_equal(s.ci_valid, 1);
    assert_same(s.ci_lo, 2.0); /* x_(2) */
    assert_same(s.ci_hi, 9.0); /* x_(9) */
    assert_same(samples[0], 1.0);
    assert_same(samples[9], 10.0);
}

static void test_summary_hundred_and_two_hundred(void **state)
{
    double samples[200];
    double scratch[200];
    sp_summary_t s;

    (void)state;
    /* 100 .. 1, reversed: x_(k) = k */
    for (int i = 0; i < 100; i++) {
        samples[i] = (double)(100 - i);
    }
    sp_stats_summarize(samples, 100, scratch, &s);
    assert_same(s.median, 50.5);
    assert_same(s.mean, 50.5);
    assert_same(s.p99, 99.0); /* nearest rank: ceil(0.99 * 100) = 99 */
    assert_same(s.ci_lo, 40.0);
    assert_same(s.ci_hi, 61.0);
    assert_int_equal(s.ci_valid, 1);

    for (int i = 0; i < 200; i++) {
        samples[i] = (double)((i * 7) % 200 + 1); /* a permutation of 1..200 */
    }
    sp_stats_summarize(samples, 200, scratch, &s);
    assert_same(s.median, 100.5);
    assert_same(s.p99, 198.0);
    assert_same(s.min, 1.0);
    assert_same(s.max, 200.0);

    /* n = 101: p99 = x_(ceil(99.99)) = x_100 */
    for (int i = 0; i < 101; i++) {
        samples[i] = (double)(i + 1);
    }
    sp_stats_summarize(samples, 101, scratch, &s);
    assert_same(s.median, 51.0);
    assert_same(s.p99, 100.0);
}

static void test_summary_constant_and_single(void **state)
{
    const double same[] = {2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0};
    const double one[] = {4.0};
    double scratch[7];
    sp_summary_t s;

    (void)state;
    sp_stats_summarize(same, 7, scratch, &s);
    assert_same(s.stddev, 0.0);
    assert_int_equal(s.ci_valid, 1);
    assert_same(sp_stats_rel_halfwidth(&s), 0.0);

    sp_stats_summarize(one, 1, scratch, &s);
    assert_int_equal(s.n, 1);
    assert_same(s.median, 4.0);
    assert_same(s.mean, 4.0);
    assert_same(s.stddev, 0.0);
    assert_same(s.p99, 4.0);
    assert_int_equal(s.ci_valid, 0);
}

static void test_summary_empty(void **state)
{
    double scratch[1] = {0.0};
    sp_summary_t s;

    (void)state;
    sp_stats_summarize(scratch, 0, scratch, &s);
    assert_int_equal(s.n, 0);
    assert_true(isnan(s.median));
    assert_true(isnan(s.mean));
    assert_true(isnan(s.min));
    assert_true(isnan(s.max));
    assert_true(isnan(s.p99));
    assert_int_equal(s.ci_valid, 0);
    assert_false(sp_stats_converged(&s, 0, 1.0));
}

/* ---- stopping rule ---- */

static sp_summary_t make_summary(size_t n, double median, double lo, double hi, int valid)
{
    sp_summary_t s;

    memset(&s, 0, sizeof(s));
    s.n = n;
    s.median = median;
    s.ci_lo = lo;
    s.ci_hi = hi;
    s.ci_valid = valid;
    return s;
}

static void test_rel_halfwidth(void **state)
{
    sp_summary_t s;

    (void)state;
    s = make_summary(20, 100.0, 98.0, 103.0, 1);
    assert_close(sp_stats_rel_halfwidth(&s), 0.03, 1e-15); /* the wider side */
    s = make_summary(20, 100.0, 96.0, 101.0, 1);
    assert_close(sp_stats_rel_halfwidth(&s), 0.04, 1e-15);
    s = make_summary(20, 100.0, 98.0, 103.0, 0);
    assert_true(isinf(sp_stats_rel_halfwidth(&s)));
    s = make_summary(20, 0.0, 0.0, 0.0, 1);
    assert_true(isinf(sp_stats_rel_halfwidth(&s)));
    s = make_summary(20, -1.0, -2.0, 0.0, 1);
    assert_true(isinf(sp_stats_rel_halfwidth(&s)));
    s = make_summary(20, NAN, 1.0, 2.0, 1);
    assert_true(isinf(sp_stats_rel_halfwidth(&s)));
}

static void test_converged(void **state)
{
    sp_summary_t s;

    (void)state;
    s = make_summary(20, 100.0, 99.0, 101.0, 1); /* half-width exactly 1% */
    assert_true(sp_stats_converged(&s, 10, 0.01));
    assert_true(sp_stats_converged(&s, 20, 0.01));
    assert_false(sp_stats_converged(&s, 21, 0.01));  /* too few samples */
    assert_false(sp_stats_converged(&s, 10, 0.009)); /* not tight enough */
    assert_true(sp_stats_converged(&s, 10, 0.03));

    s = make_summary(20, 100.0, 100.0, 100.0, 0); /* perfectly tight, but the CI is not valid */
    assert_false(sp_stats_converged(&s, 1, 1.0));

    /* end to end on samples: 10 samples tightly around 100 converge at 3%, not at 0.1% */
    {
        double samples[] = {100.0, 100.5, 99.5, 101.0, 99.0, 100.2, 99.8, 100.1, 99.9, 100.0};
        double scratch[10];
        sp_summary_t t;

        sp_stats_summarize(samples, 10, scratch, &t);
        assert_true(sp_stats_converged(&t, 10, 0.03));
        assert_false(sp_stats_converged(&t, 10, 0.001));
        assert_false(sp_stats_converged(&t, 11, 0.03));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ci_reference_is_right),
        cmocka_unit_test(test_ci_known_values_95),
        cmocka_unit_test(test_ci_too_few_samples),
        cmocka_unit_test(test_ci_matches_exact_for_every_small_n),
        cmocka_unit_test(test_ci_large_n_is_the_largest_valid_l),
        cmocka_unit_test(test_ci_coverage),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_summary_small_odd),
        cmocka_unit_test(test_summary_ten),
        cmocka_unit_test(test_summary_hundred_and_two_hundred),
        cmocka_unit_test(test_summary_constant_and_single),
        cmocka_unit_test(test_summary_empty),
        cmocka_unit_test(test_rel_halfwidth),
        cmocka_unit_test(test_converged),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
