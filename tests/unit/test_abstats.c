/* A/B statistics on known data: Benjamini-Hochberg against hand-computed q-values and the
 * 15-test example of Benjamini & Hochberg (1995), the bootstrap ratio of medians, Student t over
 * runs, and the minimum-effect and equivalence (TOST) tests against closed-form t at df 2 (Welch
 * df, minimum detectable effect, runs needed, BH verdicts); bad input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "abstats.h"

/* Log-normal-ish positive samples from a fixed linear congruential stream. */
static void draw_samples(double *x, size_t n, uint32_t seed, double scale)
{
    for (size_t i = 0; i < n; i++) {
        double u = 0.0;
        for (int k = 0; k < 4; k++) { /* sum of uniforms: roughly normal */
            seed = seed * 1664525u + 1013904223u;
            u += (double)(seed >> 8) / 16777216.0;
        }
        x[i] = scale * exp(0.05 * (u - 2.0) * 1.7);
    }
}

static void test_bh_hand(void **state)
{
    double p[4] = {0.01, 0.04, 0.03, 0.005};
    double q[4];

    (void)state;
    assert_int_equal(sp_ab_bh_adjust(p, 4, q), SP_OK);
    assert_float_equal(q[0], 0.02, 1e-12);
    assert_float_equal(q[1], 0.04, 1e-12);
    assert_float_equal(q[2], 0.04, 1e-12);
    assert_float_equal(q[3], 0.02, 1e-12);
    /* in place, and capped at 1 */
    {
        double r[3] = {0.9, 0.8, 0.95};
        assert_int_equal(sp_ab_bh_adjust(r, 3, r), SP_OK);
        assert_float_equal(r[0], 0.95, 1e-12);
        assert_float_equal(r[1], 0.95, 1e-12);
        assert_float_equal(r[2], 0.95, 1e-12);
    }
}

static void test_bh_paper(void **state)
{
    /* Benjamini & Hochberg (1995), section 4: 15 p-values; at FDR 0.05 the procedure rejects
     * the 4 smallest (Bonferroni would reject 3) */
    double p[15] = {0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
                    0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.0000};
    double q[15];
    int rejected = 0, bonferroni = 0;

    (void)state;
    assert_int_equal(sp_ab_bh_adjust(p, 15, q), SP_OK);
    for (int i = 0; i < 15; i++) {
        rejected += q[i] <= 0.05;
        bonferroni += p[i] * 15 <= 0.05;
        assert_true(q[i] >= p[i]);
    }
    assert_int_equal(rejected, 4);
    assert_int_equal(bonferroni, 3);
}

static void test_ratio_null(void **state)
{
    double a[40], b[40];
    int covered = 0, small_p = 0;

    (void)state;
    for (uint32_t t = 0; t < 40; t++) {
        sp_ab_ratio_t r;
        draw_samples(a, 40, 1000 + t, 100.0);
        draw_samples(b, 40, 5000 + 7 * t, 100.0);
        assert_int_equal(sp_ab_ratio(a, 40, b, 40, 2000, 0.95, 42 + t, &r), SP_OK);
        assert_true(r.lo <= r.ratio && r.ratio <= r.hi);
        covered += r.lo <= 1.0 && 1.0 <= r.hi;
        small_p += r.p < 0.05;
    }
    /* 95% intervals: about 38 of 40 cover 1; allow the binomial spread */
    assert_true(covered >= 34);
    assert_true(small_p <= 6);
}

static void test_ratio_shift(void **state)
{
    double a[30], b[30];
    sp_ab_ratio_t r, again;

    (void)state;
    draw_samples(a, 30, 11, 100.0);
    draw_samples(b, 30, 97, 110.0); /* B 10% slower */
    assert_int_equal(sp_ab_ratio(a, 30, b, 30, 2000, 0.95, 7, &r), SP_OK);
    assert_true(r.ratio > 1.05 && r.ratio < 1.15);
    assert_true(r.lo > 1.0);
    assert_true(r.p < 0.01);
    assert_true(r.p >= 1.0 / 2001.0);
    /* the same seed gives the same answer */
    assert_int_equal(sp_ab_ratio(a, 30, b, 30, 2000, 0.95, 7, &again), SP_OK);
    assert_true(again.lo == r.lo && again.hi == r.hi && again.p == r.p);
    /* B faster: the reverse */
    assert_int_equal(sp_ab_ratio(b, 30, a, 30, 2000, 0.95, 7, &r), SP_OK);
    assert_true(r.hi < 1.0);
}

static void test_ratio_bad(void **state)
{
    double a[3] = {1.0, 2.0, 3.0}, z[3] = {1.0, 0.0, 3.0};
    sp_ab_ratio_t r;

    (void)state;
    assert_int_equal(sp_ab_ratio(a, 1, a, 3, 1000, 0.95, 1, &r), SP_ERR_INVALID);
    assert_int_equal(sp_ab_ratio(a, 3, a, 3, 10, 0.95, 1, &r), SP_ERR_INVALID);
    assert_int_equal(sp_ab_ratio(a, 3, a, 3, 1000, 1.0, 1, &r), SP_ERR_INVALID);
    assert_int_equal(sp_ab_ratio(a, 3, z, 3, 1000, 0.95, 1, &r), SP_ERR_INVALID);
    assert_int_equal(sp_ab_ratio(NULL, 3, a, 3, 1000, 0.95, 1, &r), SP_ERR_INVALID);
    {
        double p[2] = {0.5, 1.5}, q[2];
        assert_int_equal(sp_ab_bh_adjust(p, 2, q), SP_ERR_INVALID);
        assert_int_equal(sp_ab_bh_adjust(NULL, 0, NULL), SP_OK);
    }
}

/* splitmix64 and Box-Muller: independent standard normal draws. */
static double uniform01(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *s)
{
    double u = uniform01(s), v = uniform01(s);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Student t against table values: t(0.975, df) for df 1, 4, 10, 30 and a two-sided p. */
static void test_t_table(void **state)
{
    (void)state;
    assert_true(fabs(sp_ab_t_quantile(0.95, 1) - 12.706) < 1e-3);
    assert_true(fabs(sp_ab_t_quantile(0.95, 4) - 2.776) < 1e-3);
    assert_true(fabs(sp_ab_t_quantile(0.95, 10) - 2.228) < 1e-3);
    assert_true(fabs(sp_ab_t_quantile(0.99, 30) - 2.750) < 1e-3);
    assert_true(fabs(sp_ab_t_two_sided_p(2.0, 10) - 0.07339) < 1e-4);
    assert_true(fabs(sp_ab_t_two_sided_p(0.0, 5) - 1.0) < 1e-12);
    assert_true(sp_ab_t_two_sided_p(1e9, 3) < 1e-12);
    assert_true(isnan(sp_ab_t_quantile(0.95, 0)));
}

/* Runs whose level moves by a run effect of 10% (sd): the over-runs interval covers 1 in about
 * 95% of A/A comparisons of 3 runs against 3, where a pooled-sample bootstrap of the same data
 * would not; a 50% shift is found. */
static void test_runs_ratio(void **state)
{
    double a[3], b[3];
    int cover = 0, found = 0;

    (void)state;
    uint64_t seed = 42;
    for (uint32_t trial = 0; trial < 200; trial++) {
        sp_ab_ratio_t r;
        for (int i = 0; i < 3; i++) {
            a[i] = 100.0 * exp(0.1 * normal(&seed));
            b[i] = 100.0 * exp(0.1 * normal(&seed));
        }
        assert_int_equal(sp_ab_runs_ratio(a, 3, b, 3, 0.95, &r), SP_OK);
        cover += r.lo <= 1.0 && r.hi >= 1.0;
        assert_true(r.lo <= r.ratio && r.ratio <= r.hi);
        for (int i = 0; i < 3; i++) {
            b[i] *= 1.5;
        }
        assert_int_equal(sp_ab_runs_ratio(a, 3, b, 3, 0.95, &r), SP_OK);
        found += r.lo > 1.0 && r.p < 0.05;
    }
    print_message("A/A covers 1: %d of 200; 1.5x found: %d of 200\n", cover, found);
    assert_true(cover >= 180);
    assert_true(found >= 180);
}

/* One run against several: the single side takes the other's spread; identical runs: p 1. */
static void test_runs_ratio_edges(void **state)
{
    double a[1] = {100.0}, b[3] = {98.0, 102.0, 100.0}, same[2] = {5.0, 5.0};
    sp_ab_ratio_t r;

    (void)state;
    assert_int_equal(sp_ab_runs_ratio(a, 1, b, 3, 0.95, &r), SP_OK);
    assert_true(r.lo < 1.0 && r.hi > 1.0 && r.p > 0.5);
    assert_int_equal(sp_ab_runs_ratio(same, 2, same, 2, 0.95, &r), SP_OK);
    assert_true(r.ratio == 1.0 && r.lo == 1.0 && r.hi == 1.0 && r.p == 1.0);
    assert_int_equal(sp_ab_runs_ratio(a, 1, a, 1, 0.95, &r), SP_ERR_INVALID);
    b[1] = -1.0;
    assert_int_equal(sp_ab_runs_ratio(a, 1, b, 3, 0.95, &r), SP_ERR_INVALID);
}

/* Two runs a side, log values -0.01, 0.01 (A) and 0.09, 0.11 (B): d = 0.1, each side's variance
 * 0.0002, se = sqrt(0.0002), Welch df = 2, where Student t has the closed form
 * P(T >= t) = (1 - t / sqrt(2 + t^2)) / 2 and quantile (2p-1) sqrt(2) / sqrt(1 - (2p-1)^2). */
static void fill_logs(double *x, const double *logs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        x[i] = exp(logs[i]);
    }
}

static void test_min_effect_hand(void **state)
{
    const double la[2] = {-0.01, 0.01}, lb[2] = {0.09, 0.11}, le[2] = {0.00, 0.02};
    double a[2], b[2], e[2], delta = log(1.03), se = sqrt(0.0002);
    sp_ab_mintest_t t;

    (void)state;
    fill_logs(a, la, 2);
    fill_logs(b, lb, 2);
    fill_logs(e, le, 2);
    assert_int_equal(sp_ab_min_effect(a, 2, b, 2, 0.03, 0.05, 0.8, 0.95, &t), SP_OK);
    assert_float_equal(t.ratio, exp(0.1), 1e-12);
    assert_float_equal(t.se_log, se, 1e-12);
    assert_float_equal(t.df, 2.0, 1e-9);
    /* P(T >= (0.1 - delta)/se) + P(T >= (0.1 + delta)/se), df 2 */
    assert_float_equal(t.p_change, 0.024864442430, 1e-9);
    /* (delta - 0.1)/se < 0: equivalence is far from shown */
    assert_float_equal(t.p_equiv, 0.980988681223, 1e-9);
    /* 95% interval: t_{0.975, 2} = 4.302653 */
    assert_float_equal(t.lo, exp(0.1 - 4.302653 * se), 1e-6);
    assert_float_equal(t.hi, exp(0.1 + 4.302653 * se), 1e-6);
    /* mde = exp(delta + (t_{0.95,2} + t_{0.8,2}) se) - 1 = exp(delta + (2.919986 + 1.060660) se)
     * - 1 */
    assert_float_equal(t.mde, 0.0896468336, 1e-7);
    assert_float_equal(sp_ab_mde(se, 2.0, 0.03, 0.05, 0.8), 0.0896468336, 1e-7);
    /* d = 0.01: TOST p = P(T >= (delta - 0.01)/se) = 0.1504115; change p above 1/2 */
    assert_int_equal(sp_ab_min_effect(a, 2, e, 2, 0.03, 0.05, 0.8, 0.95, &t), SP_OK);
    assert_float_equal(t.p_equiv, 0.150411518126, 1e-9);
    assert_true(t.p_change > 0.5);
    /* mirrored: B faster by the same amount gives the same p-values */
    assert_int_equal(sp_ab_min_effect(b, 2, a, 2, 0.03, 0.05, 0.8, 0.95, &t), SP_OK);
    assert_float_equal(t.ratio, exp(-0.1), 1e-12);
    assert_float_equal(t.p_change, 0.024864442430, 1e-9);
    (void)delta;
}

static void test_min_effect_welch_df(void **state)
{
    /* A: logs 0, 0.02, 0.04 (variance 0.0004, /3); B: 0.1, 0.14 (variance 0.0008, /2):
     * df = (w_a + w_b)^2 / (w_a^2 / 2 + w_b^2 / 1) = 1.684211 */
    const double la[3] = {0.0, 0.02, 0.04}, lb[2] = {0.1, 0.14};
    double a[3], b[2], wa = 0.0004 / 3.0, wb = 0.0004;
    sp_ab_mintest_t t;

    (void)state;
    fill_logs(a, la, 3);
    fill_logs(b, lb, 2);
    assert_int_equal(sp_ab_min_effect(a, 3, b, 2, 0.03, 0.05, 0.8, 0.95, &t), SP_OK);
    assert_float_equal(t.se_log, sqrt(wa + wb), 1e-12);
    assert_float_equal(t.df, (wa + wb) * (wa + wb) / (wa * wa / 2.0 + wb * wb), 1e-9);
    assert_float_equal(t.df, 1.684211, 1e-6);
    assert_float_equal(t.ratio, exp(0.12 - 0.02), 1e-12);
}

static void test_min_effect_edges(void **state)
{
    double one[2] = {1.0, 1.0}, up[2] = {1.1, 1.1}, near[2] = {1.01, 1.01}, bad[2] = {1.0, 0.0};
    sp_ab_mintest_t t;

    (void)state;
    /* nothing varies: the decision is the point's distance to the threshold */
    assert_int_equal(sp_ab_min_effect(one, 2, up, 2, 0.03, 0.05, 0.8, 0.95, &t), SP_OK);
    assert_true(t.p_change == 0.0 && t.p_equiv == 1.0 && t.mde == 0.03);
    assert_int_equal(sp_ab_min_effect(one, 2, near, 2, 0.03, 0.05, 0.8, 0.95, &t), SP_OK);
    assert_true(t.p_change == 1.0 && t.p_equiv == 0.0);
    assert_int_equal(sp_ab_min_effect(one, 1, up, 2, 0.03, 0.05, 0.8, 0.95, &t), SP_ERR_INVALID);
    assert_int_equal(sp_ab_min_effect(one, 2, bad, 2, 0.03, 0.05, 0.8, 0.95, &t), SP_ERR_INVALID);
    assert_int_equal(sp_ab_min_effect(one, 2, up, 2, -0.1, 0.05, 0.8, 0.95, &t), SP_ERR_INVALID);
    assert_int_equal(sp_ab_min_effect(one, 2, up, 2, 0.03, 0.05, 0.4, 0.95, &t), SP_ERR_INVALID);
    assert_true(isnan(sp_ab_mde(-1.0, 2.0, 0.03, 0.05, 0.8)));
    /* P(T >= t): the closed form at df 2, both signs */
    assert_float_equal(sp_ab_t_upper(1.0, 2.0), 0.5 * (1.0 - 1.0 / sqrt(3.0)), 1e-12);
    assert_float_equal(sp_ab_t_upper(-1.0, 2.0), 0.5 * (1.0 + 1.0 / sqrt(3.0)), 1e-12);
}

static void test_runs_needed(void **state)
{
    int n = sp_ab_runs_needed(0.02, 0.03, 0.06, 0.05, 0.8, 1000);

    (void)state;
    /* the smallest n whose mde at se = sd sqrt(2/n), df 2n - 2, is at most the target */
    assert_true(n > 2 && n < 1000);
    assert_true(sp_ab_mde(0.02 * sqrt(2.0 / n), 2.0 * n - 2.0, 0.03, 0.05, 0.8) <= 0.06);
    assert_true(sp_ab_mde(0.02 * sqrt(2.0 / (n - 1)), 2.0 * n - 4.0, 0.03, 0.05, 0.8) > 0.06);
    /* more spread needs more runs; no spread needs the minimum */
    assert_true(sp_ab_runs_needed(0.04, 0.03, 0.06, 0.05, 0.8, 1000) > n);
    assert_int_equal(sp_ab_runs_needed(0.0, 0.03, 0.06, 0.05, 0.8, 1000), 2);
    assert_int_equal(sp_ab_runs_needed(1.0, 0.03, 0.06, 0.05, 0.8, 10), 11);
    assert_int_equal(sp_ab_runs_needed(0.02, 0.03, 0.03, 0.05, 0.8, 10), -1);
}

static void test_verdicts_hand(void **state)
{
    /* p_change 0.01, 0.02, 0.9, 0.6 -> BH q 0.04, 0.04, 0.9, 0.8; p_equiv 1, 1, 0.01, 0.5 -> q
     * 1, 1, 0.04, 1 */
    sp_ab_mintest_t t[4] = {{.ratio = 1.2, .p_change = 0.01, .p_equiv = 1.0},
                            {.ratio = 0.8, .p_change = 0.02, .p_equiv = 1.0},
                            {.ratio = 1.0, .p_change = 0.9, .p_equiv = 0.01},
                            {.ratio = 1.02, .p_change = 0.6, .p_equiv = 0.5}};
    sp_ab_verdict_t v[4];
    double qc[4], qe[4];

    (void)state;
    assert_int_equal(sp_ab_verdicts(t, 4, 0.05, qc, qe, v), SP_OK);
    assert_int_equal(v[0], SP_AB_SLOWER);
    assert_int_equal(v[1], SP_AB_FASTER);
    assert_int_equal(v[2], SP_AB_WITHIN);
    assert_int_equal(v[3], SP_AB_INCONCLUSIVE);
    assert_float_equal(qc[0], 0.04, 1e-12);
    assert_float_equal(qc[3], 0.8, 1e-12);
    assert_float_equal(qe[2], 0.04, 1e-12);
    assert_float_equal(qe[3], 1.0, 1e-12);
    /* a verdict needs the adjusted p below the rate: at 0.04 none is called */
    assert_int_equal(sp_ab_verdicts(t, 4, 0.04, NULL, NULL, v), SP_OK);
    assert_true(v[0] == SP_AB_INCONCLUSIVE && v[1] == SP_AB_INCONCLUSIVE &&
                v[2] == SP_AB_INCONCLUSIVE);
    assert_string_equal(sp_ab_verdict_name(SP_AB_WITHIN), "within threshold");
    assert_int_equal(sp_ab_verdicts(t, 4, 1.0, NULL, NULL, v), SP_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bh_hand),    cmocka_unit_test(test_bh_paper),
        cmocka_unit_test(test_ratio_null), cmocka_unit_test(test_ratio_shift),
        cmocka_unit_test(test_ratio_bad),   cmocka_unit_test(test_t_table),
        cmocka_unit_test(test_runs_ratio), cmocka_unit_test(test_runs_ratio_edges),
        cmocka_unit_test(test_min_effect_hand), cmocka_unit_test(test_min_effect_welch_df),
        cmocka_unit_test(test_min_effect_edges), cmocka_unit_test(test_runs_needed),
        cmocka_unit_test(test_verdicts_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
