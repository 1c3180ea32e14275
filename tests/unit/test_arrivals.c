/* Unit tests of src/analysis/arrivals.h and sketch.h: the streaming pass gives exactly the
 * figures of the in-memory matching (skew.h) on sweep-like timelines (with other event kinds,
 * zero-byte points, dropped events, several nodes), on proxy-like ones whose seq order is
 * shuffled within a step (inside the window, and beyond it, where it falls back), with reads of
 * a few rows; bad input; and the sketch's median within its stated precision. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arrivals.h"
#include "skew.h"
#include "stats.h"

#define US 1000 /* ns */

typedef struct {
    const sp_event_rec_t *ev; /* by rank, each rank's events in recorded order */
    int fail_rank;            /* a read of this rank fails (-1: none) */
} mem_t;

static sp_status_t mem_read(void *ctx, int rank, sp_arrival_ev_t *buf, size_t max,
                            uint64_t from, size_t *n_p)
{
    mem_t *m = ctx;

    if (rank == m->fail_rank) {
        return SP_ERR_IO;
    }
    for (size_t i = 0; i < max; i++) { /* ev is the rank's own slice (see below) */
        const sp_event_rec_t *x = &m->ev[from + i];
        buf[i] = (sp_arrival_ev_t){x->seq, x->start_ns, x->end_ns, x->bytes, x->rank, x->step,
                                   x->kind};
    }
    *n_p = max;
    return SP_OK;
}

/* A source over ev[0..n) (sorted by rank); rows[] gets one row per rank. */
static sp_arrivals_source_t mem_source(const sp_event_rec_t *ev, size_t n, sp_tl_rank_t *rows,
                                       size_t *nrows_p, uint64_t chunk, int64_t err_ns, mem_t *m)
{
    size_t nr = 0;

    for (size_t i = 0; i < n; i++) {
        if (nr == 0 || rows[nr - 1].rank != ev[i].rank) {
            rows[nr++] = (sp_tl_rank_t){.rank = ev[i].rank, .offset = i, .count = 0};
        }
        rows[nr - 1].count++;
    }
    *nrows_p = nr;
    m->ev = ev;
    m->fail_rank = -1;
    return (sp_arrivals_source_t){.ranks = rows, .nranks = nr, .chunk_rows = chunk,
                                  .err_ns = err_ns, .read = NULL, .ctx = m};
}

/* mem_read needs the rank's base: the context points at the whole table, so shift by offset. */
typedef struct {
    mem_t m;
    const sp_tl_rank_t *rows;
    size_t nrows;
} mem_ranked_t;

static sp_status_t ranked_read(void *ctx, int rank, sp_arrival_ev_t *buf, size_t max,
                               uint64_t from, size_t *n_p)
{
    mem_ranked_t *r = ctx;

    for (size_t i = 0; i < r->nrows; i++) {
        if (r->rows[i].rank == rank) {
            mem_t m = {r->m.ev + r->rows[i].offset, r->m.fail_rank};
            size_t left = from < r->rows[i].count ? (size_t)(r->rows[i].count - from) : 0;
            return mem_read(&m, rank, buf, max < left ? max : left, from, n_p);
        }
    }
    *n_p = 0;
    return SP_OK;
}

/* The figures of report's old in-memory path, from skew.h, on the same events. */
static void check_against_skew(const sp_event_rec_t *ev, size_t n, int nranks,
                               const int *node_of, int nnodes, int64_t err_ns, sp_arrivals_t *a)
{
    sp_event_rec_t *kept = malloc((n + 1) * sizeof(*kept));
    sp_late_t *points = NULL;
    sp_instance_t *inst = NULL;
    size_t npoints = 0, ninst = 0, nk = 0, resolved = 0, named = 0, node_resolved = 0;
    int64_t median = 0;
    uint64_t counts[128], node_count[128]; /* nranks and nnodes at most 128 (70 in the tests) */
    int64_t node_late[128];
    double margins[4096];

    assert_true(nranks <= 128 && nnodes <= 128);
    assert_non_null(kept);
    assert_int_equal(sp_skew_point_lateness(ev, n, nranks, err_ns, &points, &npoints), SP_OK);
    assert_int_equal(a->npoints, npoints);
    for (int r = 0; r < nranks; r++) {
        int c = 0;
        double sum = 0.0;
        for (size_t i = 0; i < npoints; i++) {
            if (points[i].significant && points[i].rank == r) {
                c++;
                sum += points[i].margin_us;
            }
        }
        named += (size_t)c;
        assert_int_equal(a->point_count[r], c);
        assert_true(fabs(a->point_sum_us[r] - sum) <= 1e-9 * (1.0 + fabs(sum)));
    }
    assert_int_equal(a->named, named);
    for (size_t i = 0; i < n; i++) {
        if (ev[i].bytes > 0) {
            kept[nk++] = ev[i];
        }
    }
    assert_int_equal(sp_skew_match(kept, nk, nranks, err_ns, &inst, &ninst), SP_OK);
    assert_int_equal(a->ninst, ninst);
    if (ninst > 0) {
        assert_int_equal(sp_skew_summary(inst, ninst, &median, &resolved), SP_OK);
        assert_int_equal(a->median_skew_ns, median);
        assert_int_equal(a->resolved, resolved);
    }
    sp_skew_last_counts(inst, ninst, nranks, counts);
    for (int r = 0; r < nranks; r++) {
        int64_t late = 0;
        size_t m = 0;
        int exact = 0;
        for (size_t i = 0; i < ninst; i++) {
            if (inst[i].resolved && inst[i].last_rank == r) {
                late += inst[i].last_margin_ns;
                margins[m++] = (double)inst[i].last_margin_ns;
            }
        }
        assert_int_equal(a->last_count[r], counts[r]);
        assert_int_equal(a->late_ns[r], late);
        if (m > 0) {
            assert_true(sp_arrivals_margin_median(a, r, &exact) ==
                        sp_stats_median(margins, m, margins));
            assert_true(exact);
        } else {
            assert_true(isnan(sp_arrivals_margin_median(a, r, NULL)));
        }
    }
    if (nnodes >= 2) {
        assert_int_equal(sp_skew_node_lateness(kept, nk, node_of, nranks, nnodes, err_ns,
                                               node_count, node_late, &node_resolved),
                         SP_OK);
        assert_int_equal(a->node_resolved, node_resolved);
        for (int d = 0; d < nnodes; d++) {
            assert_int_equal(a->node_count[d], node_count[d]);
            assert_int_equal(a->node_late_ns[d], node_late[d]);
        }
    }
    free(inst);
    free(points);
    free(kept);
}

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* A sweep on nranks ranks: npoints points of nsamp samples, rank `late` late in every third
 * point, every fifth point zero bytes, a compute event now and then, and rank 1 dropping one
 * sample of point 2. Events by rank, recorded order. Returns the count. */
static size_t build_sweep(sp_event_rec_t *ev, int nranks, int npoints, int nsamp, int late)
{
    size_t n = 0;
    uint32_t s = 12345;

    for (int r = 0; r < nranks; r++) {
        uint64_t seq = 0;
        for (int p = 0; p < npoints; p++) {
            for (int k = 0; k < nsamp; k++, seq++) {
                int64_t t0 = (int64_t)seq * 1000 * US;
                int64_t jit = (int64_t)(rnd(&s) % (30 * US));
                sp_event_rec_t e;

                if (r == 1 && p == 2 && k == 3) {
                    continue; /* dropped */
                }
                sp_event_init(&e, r, SP_EV_COLL);
                e.op = 0;
                e.seq = seq;
                e.step = k;
                e.bytes = p % 5 == 4 ? 0 : 1024;
                e.start_ns = t0 + jit + (r == late && p % 3 == 0 ? 200 * US : 0);
                e.end_ns = t0 + 400 * US + (int64_t)(rnd(&s) % US);
                ev[n++] = e;
                if (rnd(&s) % 7 == 0) {
                    sp_event_init(&e, r, SP_EV_COMPUTE);
                    e.start_ns = t0 + 500 * US;
                    e.end_ns = t0 + 600 * US;
                    ev[n++] = e;
                }
            }
        }
    }
    return n;
}

/* Reverse each rank's coll events within blocks of `block` events (a proxy records a step's
 * tasks out of seq order). */
static void scramble(sp_event_rec_t *ev, size_t n, size_t block)
{
    for (size_t b = 0; b < n;) {
        size_t e = b;
        while (e < n && ev[e].rank == ev[b].rank && e - b < block) {
            e++;
        }
        for (size_t i = b, j = e - 1; i < j; i++, j--) {
            sp_event_rec_t t = ev[i];
            ev[i] = ev[j];
            ev[j] = t;
        }
        b = e;
    }
}

/* Run the pass over ev with reads of `chunk` rows and check it against skew.h. */
static void run_and_check(const sp_event_rec_t *ev, size_t n, int nranks, uint64_t chunk,
                          int want_streamed)
{
    int node_of[128];
    sp_tl_rank_t rows[128];
    mem_ranked_t ctx;
    sp_arrivals_t a;
    sp_arrivals_source_t src = mem_source(ev, n, rows, &ctx.nrows, chunk, 20 * US, &ctx.m);

    for (int r = 0; r < nranks; r++) {
        node_of[r] = r / 2 % 3; /* 3 nodes */
    }
    ctx.rows = rows;
    src.read = ranked_read;
    src.ctx = &ctx;
    assert_int_equal(sp_arrivals_run(&src, nranks, node_of, 3, &a), SP_OK);
    assert_int_equal(a.streamed, want_streamed);
    check_against_skew(ev, n, nranks, node_of, 3, 20 * US, &a);
    /* the scenario has every kind of figure, so the comparison above can fail */
    assert_true(a.named > 0 && a.npoints > a.named && a.resolved > 0 && a.node_resolved > 0);
    assert_true(a.ninst < a.npoints * 25); /* the zero-byte points are left out */
    sp_arrivals_free(&a);
}

static void test_sweep_matches_skew(void **state)
{
    sp_event_rec_t *ev = malloc(6 * 40 * 25 * 2 * sizeof(*ev));
    size_t n;

    (void)state;
    assert_non_null(ev);
    n = build_sweep(ev, 6, 40, 25, 4);
    run_and_check(ev, n, 6, 8192, 1);
    run_and_check(ev, n, 6, 3, 1); /* reads of 3 rows: refills across instances */
    free(ev);
}

/* 70 ranks: above the cursor scan's limit, the merge keeps a heap. */
static void test_many_ranks_heap(void **state)
{
    sp_event_rec_t *ev = malloc(70 * 12 * 25 * 2 * sizeof(*ev));
    size_t n;

    (void)state;
    assert_non_null(ev);
    n = build_sweep(ev, 70, 12, 25, 33);
    run_and_check(ev, n, 70, 8192, 1);
    run_and_check(ev, n, 70, 5, 1);
    scramble(ev, n, 9);
    run_and_check(ev, n, 70, 8192, 1);
    run_and_check(ev, n, 70, 2, 0);
    free(ev);
}

static void test_proxy_order(void **state)
{
    sp_event_rec_t *ev = malloc(6 * 40 * 25 * 2 * sizeof(*ev));
    size_t n;

    (void)state;
    assert_non_null(ev);
    n = build_sweep(ev, 6, 40, 25, 2);
    scramble(ev, n, 20);
    run_and_check(ev, n, 6, 8192, 1); /* inside the window */
    run_and_check(ev, n, 6, 4, 0);    /* beyond it: every event loaded and sorted */
    free(ev);
}

static void test_bad_input(void **state)
{
    sp_event_rec_t ev[8];
    sp_tl_rank_t rows[4];
    mem_ranked_t ctx;
    sp_arrivals_t a;
    sp_arrivals_source_t src;

    (void)state;
    for (int i = 0; i < 8; i++) {
        sp_event_init(&ev[i], i / 4, SP_EV_COLL);
        ev[i].seq = (uint64_t)(i % 4);
        ev[i].bytes = 8;
        ev[i].start_ns = ev[i].end_ns = i;
    }
    src = mem_source(ev, 8, rows, &ctx.nrows, 0, 0, &ctx.m);
    ctx.rows = rows;
    src.read = ranked_read;
    src.ctx = &ctx;
    assert_int_equal(sp_arrivals_run(&src, 2, NULL, 0, &a), SP_OK);
    assert_int_equal(a.ninst, 4);
    sp_arrivals_free(&a);
    assert_int_equal(sp_arrivals_run(&src, 1, NULL, 0, &a), SP_ERR_INVALID); /* rank 1 > 0 */
    ev[5].seq = 0; /* rank 1: seq 0 twice */
    assert_int_equal(sp_arrivals_run(&src, 2, NULL, 0, &a), SP_ERR_INVALID);
    ev[5].seq = 1;
    ctx.m.fail_rank = 1;
    assert_int_equal(sp_arrivals_run(&src, 2, NULL, 0, &a), SP_ERR_IO);
    assert_int_equal(sp_arrivals_run(NULL, 2, NULL, 0, &a), SP_ERR_INVALID);
}

static int cmp_i64(const void *pa, const void *pb)
{
    int64_t x = *(const int64_t *)pa, y = *(const int64_t *)pb;
    return (x > y) - (x < y);
}

/* Exact while it holds its values; beyond, the two middle values within 2^-7 of the truth. */
static void test_sketch(void **state)
{
    enum { N = 100001 };
    int64_t *v = malloc(N * sizeof(*v));
    sp_sketch_t s;
    int64_t lo, hi;
    uint32_t seed = 7;

    (void)state;
    assert_non_null(v);
    sp_sketch_init(&s, 1000);
    assert_int_equal(sp_sketch_middle(&s, &lo, &hi), SP_ERR_INVALID);
    for (int i = 0; i < N; i++) {
        v[i] = (int64_t)(rnd(&seed) % 5000000) * (i % 3 == 0 ? 1000 : 1); /* ns to ~1.4 h */
        assert_int_equal(sp_sketch_add(&s, v[i]), SP_OK);
        if (i == 9) {
            int64_t c[10];
            memcpy(c, v, sizeof(c));
            qsort(c, 10, sizeof(*c), cmp_i64);
            assert_int_equal(sp_sketch_middle(&s, &lo, &hi), SP_OK);
            assert_true(sp_sketch_exact(&s));
            assert_int_equal(lo, c[4]);
            assert_int_equal(hi, c[5]);
        }
    }
    assert_false(sp_sketch_exact(&s));
    qsort(v, N, sizeof(*v), cmp_i64);
    assert_int_equal(sp_sketch_middle(&s, &lo, &hi), SP_OK);
    assert_int_equal(lo, hi);
    assert_true(fabs((double)lo - (double)v[N / 2]) <= (double)v[N / 2] / 128.0);
    sp_sketch_free(&s);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_matches_skew),
        cmocka_unit_test(test_proxy_order),
        cmocka_unit_test(test_many_ranks_heap),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_sketch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
