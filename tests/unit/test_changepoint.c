/* Change points on synthetic series with a known answer: a planted shift found at its index, a
 * flat noisy series left alone (false-positive rate near alpha), a single spike called an
 * outlier and not a shift, two shifts both found, a level shift never called an outlier, short
 * series, determinism and bad input; issue 14: a 2x shift in 3+3 and 4+4 runs found by the t
 * scan, flat series of 6 and 8 runs left alone in 95%, the permutation floor and the rule that
 * picks the test, Welch's interval by hand. Data from a seeded splitmix64 + Box-Muller stream. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "abstats.h"
#include "changepoint.h"
#include "smallsample.h"

#define SEEDS 20
#define MAX_N 64

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* uniform in (0, 1) */
static double unif(uint64_t *s)
{
    return ((double)(mix(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(uint64_t *s, double mean, double sd)
{
    double u1 = unif(s), u2 = unif(s);

    return mean + sd * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* n values: mean levels[k] from starts[k] on (starts[0] = 0), sd 3. */
static void series(double *x, size_t n, const size_t *starts, const double *levels, int nlev,
                   uint64_t seed)
{
    uint64_t s = seed * 7919u + 1u;

    for (size_t i = 0; i < n; i++) {
        int k = 0;
        while (k + 1 < nlev && i >= starts[k + 1]) {
            k++;
        }
        x[i] = gauss(&s, levels[k], 3.0);
    }
}

static int has_change_near(const sp_cp_result_t *r, size_t at, size_t tol)
{
    for (size_t i = 0; i < r->nchanges; i++) {
        size_t d = r->changes[i].index > at ? r->changes[i].index - at : at - r->changes[i].index;
        if (d <= tol) {
            return 1;
        }
    }
    return 0;
}

/* How many changes are larger than rel (|after/before - 1|), as `regress` would report. */
static size_t changes_beyond(const sp_cp_result_t *r, double rel)
{
    size_t k = 0;

    for (size_t i = 0; i < r->nchanges; i++) {
        k += fabs(r->changes[i].median_after / r->changes[i].median_before - 1.0) > rel;
    }
    return k;
}

static void test_planted_shift(void **state)
{
    const size_t starts[2] = {0, 17};
    const double levels[2] = {100.0, 110.0};
    sp_cp_opts_t o;
    double x[30];
    int found = 0, extra = 0;

    (void)state;
    sp_cp_opts_default(&o);
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        sp_cp_result_t r;
        series(x, 30, starts, levels, 2, seed);
        assert_int_equal(sp_cp_analyze(x, 30, &o, &r), SP_OK);
        found += has_change_near(&r, 17, 1);
        extra += r.nchanges > 1;
        if (has_change_near(&r, 17, 1)) {
            for (size_t i = 0; i < r.nchanges; i++) {
                if (r.changes[i].index >= 16 && r.changes[i].index <= 18) {
                    /* the size is that of the planted shift, and the p-value is small */
                    assert_true(r.changes[i].median_after / r.changes[i].median_before > 1.05);
                    assert_true(r.changes[i].p < 0.05);
                    assert_true(r.changes[i].permutations >= 199);
                    assert_true(r.changes[i].p >= 1.0 / (r.changes[i].permutations + 1.0));
                }
            }
        }
        sp_cp_result_cleanup(&r);
    }
    assert_true(found >= SEEDS - 1);
    assert_true(extra <= 3); /* a further split is a test at level alpha */
}

static void test_flat_series(void **state)
{
    const size_t starts[1] = {0};
    const double levels[1] = {100.0};
    sp_cp_opts_t o;
    double x[30];
    int raised = 0, reported = 0;

    (void)state;
    sp_cp_opts_default(&o);
    /* 200 series for the raw rate: the first test of a series has level alpha, so about 10 of
     * 200 are expected; 18 is 2.6 standard deviations above that */
    for (uint64_t seed = 1; seed <= 200; seed++) {
        sp_cp_result_t r;
        series(x, 30, starts, levels, 1, 1000 + seed);
        assert_int_equal(sp_cp_analyze(x, 30, &o, &r), SP_OK);
        raised += r.nchanges > 0;
        if (seed <= SEEDS) {
            reported += changes_beyond(&r, 0.03) > 0;
        }
        sp_cp_result_cleanup(&r);
    }
    assert_true(raised <= 18);
    /* with the default 3% size threshold on top, nothing in at least 19 of 20 */
    assert_true(reported <= 1);
}

static void test_spike_is_outlier(void **state)
{
    const size_t starts[1] = {0};
    const double levels[1] = {100.0};
    sp_cp_opts_t o;
    double x[30];
    int quiet = 0;

    (void)state;
    sp_cp_opts_default(&o);
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        sp_cp_result_t r;
        series(x, 30, starts, levels, 1, 2000 + seed);
        x[12] = 160.0;
        x[29] = 40.0; /* a low spike at the last run: judged against its left neighbours */
        assert_int_equal(sp_cp_analyze(x, 30, &o, &r), SP_OK);
        assert_int_equal(r.noutliers, 2);
        assert_int_equal(r.outliers[0].index, 12);
        assert_true(r.outliers[0].z > 5.0);
        assert_float_equal(r.outliers[0].value, 160.0, 0.0);
        assert_true(fabs(r.outliers[0].replacement - 100.0) < 10.0);
        assert_true(fabs(r.clean[12] - 100.0) < 10.0);
        assert_int_equal(r.outliers[1].index, 29);
        quiet += changes_beyond(&r, 0.03) == 0;
        sp_cp_result_cleanup(&r);
    }
    assert_true(quiet >= SEEDS - 1);
}

static void test_two_shifts(void **state)
{
    const size_t starts[3] = {0, 15, 30};
    const double levels[3] = {100.0, 110.0, 95.0};
    sp_cp_opts_t o;
    double x[45];
    int both = 0;

    (void)state;
    sp_cp_opts_default(&o);
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        sp_cp_result_t r;
        series(x, 45, starts, levels, 3, 3000 + seed);
        assert_int_equal(sp_cp_analyze(x, 45, &o, &r), SP_OK);
        both += has_change_near(&r, 15, 1) && has_change_near(&r, 30, 1);
        for (size_t i = 1; i < r.nchanges; i++) {
            assert_true(r.changes[i - 1].index < r.changes[i].index); /* by position */
            assert_int_equal(r.changes[i].before_start, r.changes[i - 1].index);
        }
        sp_cp_result_cleanup(&r);
    }
    assert_true(both >= SEEDS - 1);
}

/* A large step with little noise (the same on both levels, as regress has it on log values):
 * every value has a neighbour on its own level, so none is an outlier, and the step is found
 * exactly. */
static void test_step_not_outlier(void **state)
{
    sp_cp_opts_t o;
    double x[9];
    sp_cp_result_t r;

    (void)state;
    sp_cp_opts_default(&o);
    for (int i = 0; i < 9; i++) {
        x[i] = (i < 5 ? 30.0 : 2100.0) + 0.3 * (double)((i * 7) % 5 - 2);
    }
    assert_int_equal(sp_cp_analyze(x, 9, &o, &r), SP_OK);
    assert_int_equal(r.noutliers, 0);
    assert_int_equal(r.nchanges, 1);
    assert_int_equal(r.changes[0].index, 5);
    assert_true(r.changes[0].median_after / r.changes[0].median_before > 50.0);
    sp_cp_result_cleanup(&r);
    /* 7 runs, 3 before the step and 4 after: the smallest p a permutation test can reach is
     * 2 / C(7, 3) = 0.057 > alpha, so the t scan decides, and finds the step */
    assert_int_equal(sp_cp_analyze(x + 2, 7, &o, &r), SP_OK);
    assert_float_equal(r.floor, 2.0 / 35.0, 1e-12);
    assert_int_equal(r.method, SP_CP_TSCAN);
    assert_int_equal(r.nchanges, 1);
    assert_int_equal(r.changes[0].index, 3);
    assert_int_equal(r.changes[0].candidates, 2);
    assert_true(r.changes[0].p < 1e-6);
    sp_cp_result_cleanup(&r);
    o.method = SP_CP_PERMUTATION; /* forced: no p below its floor, so nothing is declared */
    assert_int_equal(sp_cp_analyze(x + 2, 7, &o, &r), SP_OK);
    assert_int_equal(r.nchanges, 0);
    assert_true(r.first_p >= 2.0 / 35.0 - 0.005);
    sp_cp_result_cleanup(&r);
}

static void test_short_and_constant(void **state)
{
    sp_cp_opts_t o;
    double x[MAX_N];
    sp_cp_result_t r;
    sp_cp_change_t c[4];
    size_t n = 99;

    (void)state;
    sp_cp_opts_default(&o);
    for (size_t len = 0; len < 6; len++) {
        for (size_t i = 0; i < len; i++) {
            x[i] = i < len / 2 ? 10.0 : 1000.0;
        }
        assert_int_equal(sp_cp_analyze(len ? x : NULL, len, &o, &r), SP_OK);
        assert_int_equal(r.nchanges, 0); /* shorter than 2 * min_segment */
        sp_cp_result_cleanup(&r);
    }
    assert_int_equal(sp_cp_detect(x, 5, &o, c, 4, &n), SP_OK);
    assert_int_equal(n, 0);
    for (int i = 0; i < 20; i++) {
        x[i] = 42.0;
    }
    assert_int_equal(sp_cp_analyze(x, 20, &o, &r), SP_OK);
    assert_int_equal(r.nchanges, 0);
    assert_int_equal(r.noutliers, 0);
    sp_cp_result_cleanup(&r);
    sp_cp_result_cleanup(NULL);
}

static void test_deterministic_and_invalid(void **state)
{
    const size_t starts[2] = {0, 10};
    const double levels[2] = {100.0, 104.0};
    sp_cp_opts_t o;
    double x[20];
    sp_cp_change_t a[8], b[8];
    size_t na = 0, nb = 0, nout = 0;

    (void)state;
    sp_cp_opts_default(&o);
    series(x, 20, starts, levels, 2, 77);
    assert_int_equal(sp_cp_detect(x, 20, &o, a, 8, &na), SP_OK);
    assert_int_equal(sp_cp_detect(x, 20, &o, b, 8, &nb), SP_OK);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++) {
        assert_int_equal(a[i].index, b[i].index);
        assert_float_equal(a[i].p, b[i].p, 0.0);
    }
    o.min_segment = 1;
    assert_int_equal(sp_cp_detect(x, 20, &o, a, 8, &na), SP_ERR_INVALID);
    sp_cp_opts_default(&o);
    o.permutations = 5;
    assert_int_equal(sp_cp_detect(x, 20, &o, a, 8, &na), SP_ERR_INVALID);
    sp_cp_opts_default(&o);
    o.alpha = 0.0;
    assert_int_equal(sp_cp_detect(x, 20, &o, a, 8, &na), SP_ERR_INVALID);
    sp_cp_opts_default(&o);
    assert_int_equal(sp_cp_detect(NULL, 20, &o, a, 8, &na), SP_ERR_INVALID);
    assert_int_equal(sp_cp_detect(x, 20, NULL, a, 8, &na), SP_ERR_INVALID);
    x[3] = NAN;
    assert_int_equal(sp_cp_detect(x, 20, &o, a, 8, &na), SP_ERR_INVALID);
    assert_int_equal(sp_cp_outliers(x, 20, &o, x, NULL, NULL, &nout), SP_ERR_INVALID);
}

/* The first test's p-value is reported whether or not it is significant (regress adjusts it
 * across metrics): it is the first change's p when one is found, above alpha when none is, and
 * NaN for a series too short to test. Over 50 metrics of flat series plus one with a planted
 * shift, Benjamini-Hochberg on these p-values at 0.05 keeps the shift and calls a flat metric
 * changed in about 1 set of 10 (each null p below about 2 x 0.05 / 51 counts: 50 x 0.002 = 0.1
 * per set), where without it about 2.5 flat metrics per set would be called. */
static void test_first_p(void **state)
{
    const size_t starts[2] = {0, 15}, flat_start[1] = {0};
    const double levels[2] = {100.0, 110.0}, flat[1] = {100.0};
    sp_cp_opts_t o;
    double x[30], p[51];
    int sets_with_call = 0;

    (void)state;
    sp_cp_opts_default(&o);
    o.nseries = 51; /* as regress sets it: the test must reach alpha / 51 */
    for (uint64_t set = 0; set < 10; set++) {
        int called = 0;
        for (uint64_t k = 0; k < 50; k++) {
            sp_cp_result_t r;
            series(x, 30, flat_start, flat, 1, 5000 + set * 50 + k);
            assert_int_equal(sp_cp_analyze(x, 30, &o, &r), SP_OK);
            assert_true(r.first_p > 0.0 && r.first_p <= 1.0);
            if (r.nchanges == 0) {
                assert_true(r.first_p >= o.alpha);
            }
            p[k] = r.first_p;
            sp_cp_result_cleanup(&r);
        }
        {
            sp_cp_result_t r;
            series(x, 30, starts, levels, 2, 77 + set);
            assert_int_equal(sp_cp_analyze(x, 30, &o, &r), SP_OK);
            assert_true(r.nchanges >= 1 && r.first_p < o.alpha);
            p[50] = r.first_p;
            sp_cp_result_cleanup(&r);
        }
        assert_int_equal(sp_ab_bh_adjust(p, 51, p), SP_OK);
        for (int k = 0; k < 50; k++) {
            called += p[k] <= o.alpha;
        }
        sets_with_call += called > 0;
        assert_true(p[50] <= o.alpha); /* the planted shift survives */
    }
    print_message("sets of 50 flat metrics with a metric called changed after BH: %d of 10\n",
                  sets_with_call);
    /* a flat metric is called when its p <= 2 x 0.05 / 51: about 0.12 of sets (measured over 4,000
     * series: P(first p <= 0.00196) = 0.0015-0.004, a little above nominal where the outlier
     * screen trims the noise), so 4 or more of 10 has probability ~3%; without BH ~2 per set */
    assert_true(sets_with_call <= 3);
    {
        sp_cp_result_t r;
        assert_int_equal(sp_cp_analyze(x, 4, &o, &r), SP_OK);
        assert_true(isnan(r.first_p) && r.nchanges == 0);
        sp_cp_result_cleanup(&r);
    }
}

/* n values on the log scale of a timing: log(100) + N(0, sd), times `factor` from run `at` on. */
static void log_series(double *x, size_t n, size_t at, double factor, double sd, uint64_t seed)
{
    uint64_t s = seed * 104729u + 7u;

    for (size_t i = 0; i < n; i++) {
        x[i] = gauss(&s, log(100.0) + (i >= at ? log(factor) : 0.0), sd);
    }
}

/* Issue 14: a 2x shift in 3+3 and in 4+4 runs. The permutation floor (2 / C(6, 3) = 0.1,
 * 2 / C(8, 4) = 0.029 > alpha / 4) rules the permutation test out, the t scan decides: with 5%
 * run-to-run noise every one of 50 seeds finds the shift at its run, and its simultaneous
 * interval holds log 2; with 15% noise most do (measured rate printed). */
static void test_small_series_shift(void **state)
{
    static const size_t lens[2] = {6, 8};
    sp_cp_opts_t o;
    double x[8];

    (void)state;
    sp_cp_opts_default(&o);
    for (int l = 0; l < 2; l++) {
        size_t n = lens[l], half = n / 2;
        int found = 0, covered = 0, found_noisy = 0;
        for (uint64_t seed = 1; seed <= 50; seed++) {
            sp_cp_result_t r;
            log_series(x, n, half, 2.0, 0.05, seed);
            assert_int_equal(sp_cp_analyze(x, n, &o, &r), SP_OK);
            assert_int_equal(r.method, SP_CP_TSCAN);
            assert_float_equal(r.floor, n == 6 ? 0.1 : 2.0 / 70.0, 1e-12);
            if (r.nchanges == 1 && r.changes[0].index == half && r.changes[0].p < o.alpha) {
                found++;
                assert_int_equal(r.changes[0].candidates, n - 5);
                assert_int_equal(r.changes[0].permutations, 0);
                covered += r.changes[0].diff_lo <= log(2.0) && log(2.0) <= r.changes[0].diff_hi;
            }
            sp_cp_result_cleanup(&r);
            log_series(x, n, half, 2.0, 0.15, seed);
            assert_int_equal(sp_cp_analyze(x, n, &o, &r), SP_OK);
            found_noisy += r.nchanges == 1 && r.changes[0].index == half;
            sp_cp_result_cleanup(&r);
        }
        print_message("%zu+%zu runs, 2x shift: found in %d of 50 (noise 5%%), interval holds log 2 "
                      "in %d; noise 15%%: %d of 50\n",
                      half, half, found, covered, found_noisy);
        assert_int_equal(found, 50);
        assert_true(covered >= 47);
        assert_true(found_noisy >= 35);
    }
}

/* Flat series of 6 and 8 runs (5% noise), 400 seeds each: a change beyond regress's 3% threshold
 * (what makes it exit 1) in at most 5% of them. The t test itself is exact for normal noise;
 * the outlier screen, which trims the noise of so short a series, lifts the rate of significant
 * splits slightly above alpha (measured over 4,000 series of 6: 5.3% without the screen, 5.55%
 * with it), so that rate is held to 7%. */
static void test_small_series_flat(void **state)
{
    static const size_t lens[2] = {6, 8};
    sp_cp_opts_t o;
    double x[8];

    (void)state;
    sp_cp_opts_default(&o);
    for (int l = 0; l < 2; l++) {
        size_t n = lens[l];
        int raised = 0, beyond = 0;
        for (uint64_t seed = 1; seed <= 400; seed++) {
            sp_cp_result_t r;
            log_series(x, n, n, 1.0, 0.05, 9000 + seed);
            assert_int_equal(sp_cp_analyze(x, n, &o, &r), SP_OK);
            raised += r.nchanges > 0;
            for (size_t i = 0; i < r.nchanges; i++) {
                if (fabs(exp(r.changes[i].mean_after - r.changes[i].mean_before) - 1.0) > 0.03) {
                    beyond++;
                    break;
                }
            }
            sp_cp_result_cleanup(&r);
        }
        print_message("flat %zu runs: a change in %d of 400, beyond 3%% in %d\n", n, raised,
                      beyond);
        assert_true(raised <= 28);
        assert_true(beyond <= 20);
    }
}

/* The permutation floor: exact values, the block length, and the rule that picks the test. */
static void test_floor_and_method(void **state)
{
    sp_cp_opts_t o;

    (void)state;
    sp_cp_opts_default(&o);
    assert_float_equal(sp_ss_perm_floor(6), 0.1, 1e-12);
    assert_float_equal(sp_ss_perm_floor(7), 2.0 / 35.0, 1e-12);
    assert_float_equal(sp_ss_perm_floor(10), 2.0 / 252.0, 1e-12);
    assert_float_equal(sp_ss_perm_floor(1), 1.0, 0.0);
    assert_int_equal(sp_cp_block_len(&o, 15), 1);
    assert_int_equal(sp_cp_block_len(&o, 16), 2);
    assert_int_equal(sp_cp_block_len(&o, 81), 3);
    assert_float_equal(sp_cp_perm_floor(&o, 30), sp_ss_perm_floor(15), 1e-15);
    /* one series: the permutation test from 10 runs (floor 0.0079 <= 0.0125) */
    assert_int_equal(sp_cp_method_for(&o, 9), SP_CP_TSCAN);
    assert_int_equal(sp_cp_method_for(&o, 10), SP_CP_PERMUTATION);
    /* 8 series: its floor must stay below 0.05 / 32, from 13 runs */
    o.nseries = 8;
    assert_int_equal(sp_cp_method_for(&o, 12), SP_CP_TSCAN);
    assert_int_equal(sp_cp_method_for(&o, 13), SP_CP_PERMUTATION);
    o.method = SP_CP_TSCAN;
    assert_int_equal(sp_cp_method_for(&o, 100), SP_CP_TSCAN);
}

/* Block permutations move whole blocks: 12 runs with a 100x step at run 6, permuted in blocks of
 * 6, have only the original order and its mirror image (same Q), so p >= 0.5 and nothing is
 * declared; in blocks of 1 (single runs) the step is found. A method outside the enum is
 * invalid. */
static void test_blocks_move_whole(void **state)
{
    sp_cp_opts_t o;
    double x[12];
    sp_cp_result_t r;

    (void)state;
    for (int i = 0; i < 12; i++) {
        x[i] = (i < 6 ? 1.0 : 100.0) + 0.01 * (double)((i * 5) % 7);
    }
    sp_cp_opts_default(&o);
    o.method = SP_CP_PERMUTATION;
    o.block = 6;
    assert_int_equal(sp_cp_analyze(x, 12, &o, &r), SP_OK);
    assert_int_equal(r.block, 6);
    assert_float_equal(r.floor, 1.0, 0.0);
    assert_int_equal(r.nchanges, 0);
    assert_true(r.first_p >= 0.5);
    sp_cp_result_cleanup(&r);
    o.block = 1;
    assert_int_equal(sp_cp_analyze(x, 12, &o, &r), SP_OK);
    assert_int_equal(r.nchanges, 1);
    assert_int_equal(r.changes[0].index, 6);
    assert_int_equal(r.changes[0].method, SP_CP_PERMUTATION);
    sp_cp_result_cleanup(&r);
    o.method = (sp_cp_method_t)7;
    assert_int_equal(sp_cp_analyze(x, 12, &o, &r), SP_ERR_INVALID);
}

/* Welch's interval against a hand computation: a = {1, 2, 3}, b = {4, 6, 8}: diff 4,
 * se^2 = 1/3 + 4/3 = 5/3, df = (5/3)^2 / ((1/3)^2 / 2 + (4/3)^2 / 2) = 2.941. */
static void test_welch(void **state)
{
    const double a[3] = {1.0, 2.0, 3.0}, b[3] = {4.0, 6.0, 8.0}, c[2] = {5.0, 5.0};
    sp_ss_welch_t w;
    double half;

    (void)state;
    assert_int_equal(sp_ss_welch(a, 3, b, 3, 0.95, &w), SP_OK);
    assert_float_equal(w.diff, 4.0, 1e-12);
    assert_float_equal(w.df, (25.0 / 9.0) / (1.0 / 18.0 + 16.0 / 18.0), 1e-9);
    half = sp_ab_t_quantile(0.95, w.df) * sqrt(5.0 / 3.0);
    assert_true(half > 4.0 && half < 4.2); /* t(0.975, 2.94) = 3.19 */
    assert_float_equal(w.lo, 4.0 - half, 1e-9);
    assert_float_equal(w.hi, 4.0 + half, 1e-9);
    assert_int_equal(sp_ss_welch(c, 2, c, 2, 0.95, &w), SP_OK);
    assert_true(w.lo == 0.0 && w.hi == 0.0);
    assert_int_equal(sp_ss_welch(a, 1, b, 3, 0.95, &w), SP_ERR_INVALID);
    /* {1} against {2, 3}: pooled variance 0.5 on 1 df, t = 1.5 / sqrt(0.5 (1 + 1/2)) */
    assert_float_equal(sp_ss_split_t(a, 3, 1), 1.5 / sqrt(0.75), 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planted_shift),
        cmocka_unit_test(test_flat_series),
        cmocka_unit_test(test_spike_is_outlier),
        cmocka_unit_test(test_two_shifts),
        cmocka_unit_test(test_step_not_outlier),
        cmocka_unit_test(test_short_and_constant),
        cmocka_unit_test(test_deterministic_and_invalid),
        cmocka_unit_test(test_first_p),
        cmocka_unit_test(test_small_series_shift),
        cmocka_unit_test(test_small_series_flat),
        cmocka_unit_test(test_floor_and_method),
        cmocka_unit_test(test_blocks_move_whole),
        cmocka_unit_test(test_welch),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
