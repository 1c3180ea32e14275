/* Unit tests of src/base/intervals.h: unions (overlapping, touching, nested, unsorted,
 * empty), lengths, intersections and clipping, by hand and against a brute-force bitmap. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "intervals.h"

#define IV(s, e) ((sp_interval_t){(s), (e)})

static void assert_list(const sp_interval_t *got, size_t ngot, const sp_interval_t *want,
                        size_t nwant)
{
    assert_int_equal(ngot, nwant);
    for (size_t i = 0; i < nwant; i++) {
        if (got[i].start_ns != want[i].start_ns || got[i].end_ns != want[i].end_ns) {
            print_error("interval %zu: expected [%lld, %lld), got [%lld, %lld)\n", i,
                        (long long)want[i].start_ns, (long long)want[i].end_ns,
                        (long long)got[i].start_ns, (long long)got[i].end_ns);
            fail();
        }
    }
}

/* ---- union ---- */

static void test_union_overlap_touch_nest(void **state)
{
    (void)state;
    /* unsorted; [0,10)+[5,15) overlap, [15,20) touches, [30,100) nests [40,50) and [40,100) */
    const sp_interval_t in[] = {IV(40, 50), IV(15, 20),  IV(0, 10),   IV(30, 100),
                                IV(5, 15),  IV(40, 100), IV(200, 201)};
    const sp_interval_t want[] = {IV(0, 20), IV(30, 100), IV(200, 201)};
    sp_interval_t out[7];
    size_t nout = 99;

    assert_int_equal(sp_intervals_union(in, 7, out, &nout), SP_OK);
    assert_list(out, nout, want, 3);
    assert_int_equal(sp_intervals_length(out, nout), 20 + 70 + 1);
}

static void test_union_empty_and_inverted_ignored(void **state)
{
    (void)state;
    /* [10,10) and [30,20) must not extend or bridge anything: [0,10) and [11,20) stay apart */
    const sp_interval_t in[] = {IV(11, 20), IV(10, 10), IV(0, 10), IV(30, 5), IV(50, 50)};
    const sp_interval_t want[] = {IV(0, 10), IV(11, 20)};
    sp_interval_t out[5];
    size_t nout = 99;

    assert_int_equal(sp_intervals_union(in, 5, out, &nout), SP_OK);
    assert_list(out, nout, want, 2);

    const sp_interval_t all_empty[] = {IV(3, 3), IV(9, 1)};
    assert_int_equal(sp_intervals_union(all_empty, 2, out, &nout), SP_OK);
    assert_int_equal(nout, 0);

    nout = 99;
    assert_int_equal(sp_intervals_union(NULL, 0, NULL, &nout), SP_OK);
    assert_int_equal(nout, 0);
}

static void test_union_negative_times_and_in_place(void **state)
{
    (void)state;
    sp_interval_t buf[] = {IV(5, 7), IV(-100, -50), IV(-60, 0), IV(0, 1)};
    const sp_interval_t want[] = {IV(-100, 1), IV(5, 7)};
    size_t nout = 99;

    assert_int_equal(sp_intervals_union(buf, 4, buf, &nout), SP_OK);
    assert_list(buf, nout, want, 2);
}

static void test_union_bad_args_leave_output(void **state)
{
    (void)state;
    const sp_interval_t in[] = {IV(0, 1)};
    sp_interval_t out[1];
    size_t nout = 42;

    assert_int_equal(sp_intervals_union(in, 1, out, NULL), SP_ERR_INVALID);
    assert_int_equal(sp_intervals_union(NULL, 1, out, &nout), SP_ERR_INVALID);
    assert_int_equal(sp_intervals_union(in, 1, NULL, &nout), SP_ERR_INVALID);
    assert_int_equal(nout, 42);
}

/* ---- length, intersection ---- */

static void test_length(void **state)
{
    (void)state;
    const sp_interval_t u[] = {IV(-10, 0), IV(5, 6), IV(100, 1100)};

    assert_int_equal(sp_intervals_length(u, 3), 10 + 1 + 1000);
    assert_int_equal(sp_intervals_length(u, 0), 0);
    assert_int_equal(sp_intervals_length(NULL, 0), 0);
}

static void test_intersect(void **state)
{
    (void)state;
    const sp_interval_t a[] = {IV(0, 10), IV(20, 30), IV(40, 50)};
    const sp_interval_t b[] = {IV(5, 25)};
    const sp_interval_t c[] = {IV(10, 20), IV(30, 40), IV(50, 60)}; /* a's gaps: touching only */
    const sp_interval_t d[] = {IV(1, 2), IV(3, 4), IV(5, 6), IV(45, 100)};

    assert_int_equal(sp_intervals_intersect_length(a, 3, b, 1), 5 + 5);
    assert_int_equal(sp_intervals_intersect_length(b, 1, a, 3), 5 + 5);
    assert_int_equal(sp_intervals_intersect_length(a, 3, c, 3), 0);
    assert_int_equal(sp_intervals_intersect_length(a, 3, a, 3), 30);
    /* several short ones inside one long one, then one straddling an end */
    assert_int_equal(sp_intervals_intersect_length(a, 3, d, 4), 1 + 1 + 1 + 5);
    assert_int_equal(sp_intervals_intersect_length(a, 3, NULL, 0), 0);
    assert_int_equal(sp_intervals_intersect_length(NULL, 0, b, 1), 0);
}

/* ---- clip ---- */

static void test_clip(void **state)
{
    (void)state;
    sp_interval_t l[] = {IV(0, 10), IV(20, 30), IV(40, 50), IV(60, 70)};
    const sp_interval_t want[] = {IV(5, 10), IV(20, 30), IV(40, 45)};

    assert_int_equal(sp_intervals_clip(l, 4, 5, 45), 3);
    assert_list(l, 3, want, 3);

    sp_interval_t m[] = {IV(0, 10), IV(20, 30)};
    /* a window in a gap, a window touching an end, and an inverted window drop everything */
    assert_int_equal(sp_intervals_clip(m, 2, 12, 18), 0);
    sp_interval_t m2[] = {IV(0, 10), IV(20, 30)};
    assert_int_equal(sp_intervals_clip(m2, 2, 10, 20), 0);
    sp_interval_t m3[] = {IV(0, 10), IV(20, 30)};
    assert_int_equal(sp_intervals_clip(m3, 2, 25, 5), 0);

    /* a window wider than everything keeps everything unchanged */
    sp_interval_t w[] = {IV(0, 10), IV(20, 30)};
    const sp_interval_t wwant[] = {IV(0, 10), IV(20, 30)};
    assert_int_equal(sp_intervals_clip(w, 2, INT64_MIN, INT64_MAX), 2);
    assert_list(w, 2, wwant, 2);
}

/* ---- against a bitmap ---- */

#define GRID 256

static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static void random_list(uint32_t *seed, sp_interval_t *l, size_t n, unsigned char *bits)
{
    memset(bits, 0, GRID);
    for (size_t i = 0; i < n; i++) {
        int64_t s = (int64_t)(lcg(seed) % GRID);
        int64_t len = (int64_t)(lcg(seed) % 40) - 5; /* some empty or inverted */

        l[i] = IV(s, s + len > GRID ? GRID : s + len);
        for (int64_t t = l[i].start_ns; t < l[i].end_ns; t++) {
            bits[t] = 1;
        }
    }
}

static void test_against_bitmap(void **state)
{
    (void)state;
    uint32_t seed = 12345;

    for (int round = 0; round < 500; round++) {
        sp_interval_t a[20], b[20], ua[20], ub[20];
        unsigned char abits[GRID], bbits[GRID];
        size_t na = 1 + (size_t)round % 20;
        size_t nb = 1 + (size_t)(round * 7) % 20;
        size_t nua, nub;
        int64_t want_a = 0, want_ab = 0, want_clip = 0;
        int64_t lo = (int64_t)(lcg(&seed) % GRID), hi = (int64_t)(lcg(&seed) % GRID);

        random_list(&seed, a, na, abits);
        random_list(&seed, b, nb, bbits);
        for (int t = 0; t < GRID; t++) {
            want_a += abits[t];
            want_ab += abits[t] && bbits[t];
            want_clip += abits[t] && t >= lo && t < hi;
        }
        assert_int_equal(sp_intervals_union(a, na, ua, &nua), SP_OK);
        assert_int_equal(sp_intervals_union(b, nb, ub, &nub), SP_OK);
        /* a union list: sorted, non-empty, neither overlapping nor touching */
        for (size_t i = 0; i < nua; i++) {
            assert_true(ua[i].end_ns > ua[i].start_ns);
            if (i > 0) {
                assert_true(ua[i].start_ns > ua[i - 1].end_ns);
            }
        }
        assert_int_equal(sp_intervals_length(ua, nua), want_a);
        assert_int_equal(sp_intervals_intersect_length(ua, nua, ub, nub), want_ab);
        nua = sp_intervals_clip(ua, nua, lo, hi);
        assert_int_equal(sp_intervals_length(ua, nua), want_clip);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_union_overlap_touch_nest),
        cmocka_unit_test(test_union_empty_and_inverted_ignored),
        cmocka_unit_test(test_union_negative_times_and_in_place),
        cmocka_unit_test(test_union_bad_args_leave_output),
        cmocka_unit_test(test_length),
        cmocka_unit_test(test_intersect),
        cmocka_unit_test(test_clip),
        cmocka_unit_test(test_against_bitmap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
