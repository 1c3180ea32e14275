/* Unit tests of src/base/lateness.h, the per-point late-rank statistic: the median arrival, the
 * delayed rank named with its margin and p-value, no rank named when lateness rotates, lies
 * within the clock bound or has too few samples, ties, one rank, the sign test's values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lateness.h"

#define US 1000 /* ns */

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

    return (a > b) - (a < b);
}

/* One sample's lateness is arrival - median for every rank, the median found without sorting:
 * checked against a sort, odd and even rank counts, many duplicates. */
static void test_median_matches_sort(void **state)
{
    uint32_t seed = 12345;

    (void)state;
    for (int nranks = 1; nranks <= 40; nranks++) {
        for (int trial = 0; trial < 20; trial++) {
            sp_late_acc_t acc;
            int64_t a[40], sorted[40];
            double median;

            for (int r = 0; r < nranks; r++) {
                /* trial % 3 == 0: only 4 distinct values, so ties are everywhere */
                a[r] = trial % 3 == 0 ? (int64_t)(lcg(&seed) % 4) * US
                                      : 1000000 + (int64_t)(lcg(&seed) % 100000);
            }
            memcpy(sorted, a, sizeof(a));
            qsort(sorted, (size_t)nranks, sizeof(*sorted), cmp_i64);
            median = nranks % 2 ? (double)sorted[nranks / 2]
                                : ((double)sorted[nranks / 2 - 1] + (double)sorted[nranks / 2]) / 2;
            assert_int_equal(sp_late_init(&acc, nranks, 0), SP_OK);
            sp_late_add(&acc, a, 0);
            for (int r = 0; r < nranks; r++) {
                assert_true(fabs(acc.late_ns[r] - ((double)a[r] - median)) < 1e-6);
                assert_int_equal(acc.beyond[r], (double)a[r] - median > 0.0);
            }
            sp_late_cleanup(&acc);
        }
    }
}

/* 4 ranks, rank 2 sleeps 500 us before every batch, jitter of up to 30 us everywhere: rank 2 is
 * last in every sample, about 500 us after the median, p = 4 / 2^10. */
static void test_delayed_rank_named(void **state)
{
    sp_late_acc_t acc;
    sp_late_t v;
    uint32_t seed = 7;

    (void)state;
    assert_int_equal(sp_late_init(&acc, 4, 2 * US), SP_OK);
    for (int s = 0; s < 10; s++) {
        int64_t a[4];
        for (int r = 0; r < 4; r++) {
            a[r] = (int64_t)s * 10000 * US + (int64_t)(lcg(&seed) % (30 * US)) +
                   (r == 2 ? 500 * US : 0);
        }
        sp_late_add(&acc, a, 0);
    }
    sp_late_result(&acc, &v);
    assert_int_equal(v.rank, 2);
    assert_int_equal(v.significant, 1);
    assert_int_equal(v.samples, 10);
    assert_int_equal(v.last, 10);
    assert_int_equal(v.beyond, 10);
    assert_true(v.margin_us > 470.0 && v.margin_us < 530.0);
    assert_true(fabs(v.p - 4.0 / 1024.0) < 1e-12);
    sp_late_cleanup(&acc);
}

/* Every rank is last in turn, 50 us late: someone is last most often by the tie rule, but each is
 * above the median in only half the samples, so nobody is named. */
static void test_rotating_lateness_not_named(void **state)
{
    sp_late_acc_t acc;
    sp_late_t v;

    (void)state;
    assert_int_equal(sp_late_init(&acc, 4, 0), SP_OK);
    for (int s = 0; s < 40; s++) {
        int64_t a[4];
        for (int r = 0; r < 4; r++) {
            /* last: s % 4; second: (s + 1) % 4, so each rank is above the median half the time */
            a[r] = r == s % 4 ? 50 * US : r == (s + 1) % 4 ? 10 * US : (int64_t)r;
        }
        sp_late_add(&acc, a, 0);
    }
    sp_late_result(&acc, &v);
    assert_true(v.rank >= 0);
    assert_int_equal(v.last, 10);
    assert_int_equal(v.beyond, 20);
    assert_int_equal(v.significant, 0);
    assert_true(v.p >= SP_LATE_ALPHA);
    sp_late_cleanup(&acc);
}

/* Rank 3 is always last by 5 us: within a 10 us clock bound it is not named (the order cannot be
 * trusted), beyond a 1 us bound it is. */
static void test_clock_bound(void **state)
{
    sp_late_acc_t acc;
    sp_late_t v;
    const int64_t bounds[2] = {10 * US, 1 * US};

    (void)state;
    for (int b = 0; b < 2; b++) {
        assert_int_equal(sp_late_init(&acc, 4, bounds[b]), SP_OK);
        for (int s = 0; s < 20; s++) {
            int64_t a[4] = {0, 100, 200, 5 * US};
            sp_late_add(&acc, a, 0);
        }
        sp_late_result(&acc, &v);
        assert_int_equal(v.rank, 3);
        assert_int_equal(v.last, 20);
        assert_int_equal(v.beyond, b == 0 ? 0 : 20);
        assert_int_equal(v.significant, b == 1);
        sp_late_cleanup(&acc);
    }
}

/* Rank 3 is always last by 20 us: in a 1 ms batch (5% is 50 us) that is not counted, in a 200 us
 * batch it is. */
static void test_relevance_floor(void **state)
{
    sp_late_acc_t acc;
    sp_late_t v;
    const int64_t batch_ns[2] = {1000 * US, 200 * US};

    (void)state;
    for (int b = 0; b < 2; b++) {
        assert_int_equal(sp_late_init(&acc, 4, 0), SP_OK);
        for (int s = 0; s < 20; s++) {
            int64_t a[4] = {0, 100, 200, 20 * US};
            sp_late_add(&acc, a, batch_ns[b]);
        }
        sp_late_result(&acc, &v);
        assert_int_equal(v.rank, 3);
        assert_int_equal(v.beyond, b == 0 ? 0 : 20);
        assert_int_equal(v.significant, b == 1);
        sp_late_cleanup(&acc);
    }
}

/* Rank 3 is 2 us late (beyond a 1 us bound) in 18 of 20 samples, so the signs alone are
 * significant, but 100 us early in the other 2: its mean is early, and it is not named. */
static void test_mean_inside_bound_not_named(void **state)
{
    sp_late_acc_t acc;
    sp_late_t v;

    (void)state;
    assert_int_equal(sp_late_init(&acc, 4, 1 * US), SP_OK);
    for (int s = 0; s < 20; s++) {
        int64_t a[4] = {200 * US, 200 * US + 100, 200 * US + 200,
                        s < 18 ? 202 * US + 100 : 100 * US};
        sp_late_add(&acc, a, 0);
    }
    sp_late_result(&acc, &v);
    assert_int_equal(v.rank, 3);
    assert_int_equal(v.beyond, 18);
    assert_true(v.p < SP_LATE_ALPHA);
    assert_true(v.margin_us < 0.0);
    assert_int_equal(v.significant, 0);
    sp_late_cleanup(&acc);
}

/* Always late, but 4 samples cannot make p below 0.05 with 4 ranks (4 / 2^4 = 0.25); 7 can
 * (4 / 128). Then reset starts a new point. */
static void test_few_samples_and_reset(void **state)
{
    sp_late_acc_t acc;
    sp_late_t v;
    int64_t a[4] = {0, 1 * US, 2 * US, 900 * US};
    int64_t b[4] = {900 * US, 0, 1 * US, 2 * US};

    (void)state;
    assert_int_equal(sp_late_init(&acc, 4, 0), SP_OK);
    for (int s = 0; s < 4; s++) {
        sp_late_add(&acc, a, 0);
    }
    sp_late_result(&acc, &v);
    assert_int_equal(v.rank, 3);
    assert_int_equal(v.significant, 0);
    assert_true(fabs(v.p - 0.25) < 1e-12);
    for (int s = 0; s < 3; s++) {
        sp_late_add(&acc, a, 0);
    }
    sp_late_result(&acc, &v);
    assert_int_equal(v.significant, 1);
    sp_late_reset(&acc);
    sp_late_result(&acc, &v);
    assert_int_equal(v.rank, -1);
    assert_int_equal(v.significant, 0);
    for (int s = 0; s < 8; s++) {
        sp_late_add(&acc, b, 0);
    }
    sp_late_result(&acc, &v);
    assert_int_equal(v.rank, 0);
    assert_int_equal(v.last, 8);
    assert_int_equal(v.significant, 1);
    sp_late_cleanup(&acc);
}

/* Two ranks tied for last: neither counts as last. One rank: nobody can be late. */
static void test_ties_and_one_rank(void **state)
{
    sp_late_acc_t acc;
    sp_late_t v;
    int64_t tie[3] = {0, 7 * US, 7 * US};
    int64_t one[1] = {123};

    (void)state;
    assert_int_equal(sp_late_init(&acc, 3, 0), SP_OK);
    sp_late_add(&acc, tie, 0);
    assert_int_equal(acc.last[0] + acc.last[1] + acc.last[2], 0);
    sp_late_cleanup(&acc);

    assert_int_equal(sp_late_init(&acc, 1, 0), SP_OK);
    for (int s = 0; s < 20; s++) {
        sp_late_add(&acc, one, 0);
    }
    sp_late_result(&acc, &v);
    assert_int_equal(v.rank, -1);
    assert_int_equal(v.significant, 0);
    assert_true(v.p == 1.0);
    sp_late_cleanup(&acc);

    assert_int_equal(sp_late_init(&acc, 0, 0), SP_ERR_INVALID);
    assert_int_equal(sp_late_init(&acc, 2, -1), SP_ERR_INVALID);
    sp_late_cleanup(&acc); /* harmless after a failed init */
}

/* The sign test's tail against hand-computed binomial sums. */
static void test_sign_p(void **state)
{
    (void)state;
    assert_true(fabs(sp_late_sign_p(10, 10) - 1.0 / 1024.0) < 1e-15);
    assert_true(fabs(sp_late_sign_p(10, 9) - 11.0 / 1024.0) < 1e-15);
    assert_true(fabs(sp_late_sign_p(10, 5) - 638.0 / 1024.0) < 1e-12);
    assert_true(sp_late_sign_p(10, 0) == 1.0);
    assert_true(sp_late_sign_p(10, 11) == 0.0);
    assert_true(fabs(sp_late_sign_p(1000, 500) - 0.5126125) < 1e-6);
    assert_true(sp_late_sign_p(1000, 600) < 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median_matches_sort),
        cmocka_unit_test(test_delayed_rank_named),
        cmocka_unit_test(test_rotating_lateness_not_named),
        cmocka_unit_test(test_clock_bound),
        cmocka_unit_test(test_relevance_floor),
        cmocka_unit_test(test_mean_inside_bound_not_named),
        cmocka_unit_test(test_few_samples_and_reset),
        cmocka_unit_test(test_ties_and_one_rank),
        cmocka_unit_test(test_sign_p),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
