/* Unit tests of src/analysis/skew.h on hand-built timelines: the late rank is found by arrival,
 * not duration; unresolvable margins, missing ranks, unsorted input, other event kinds, bad
 * input, waits, counts, the summary, and a large timeline. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "skew.h"

#define US 1000    /* ns */
#define MS 1000000 /* ns */

static sp_event_rec_t coll(int rank, uint64_t seq, int64_t start_ns, int64_t end_ns)
{
    sp_event_rec_t ev;

    sp_event_init(&ev, rank, SP_EV_COLL);
    ev.op = 0;
    ev.seq = seq;
    ev.start_ns = start_ns;
    ev.end_ns = end_ns;
    return ev;
}

/* A fixed pseudo-random permutation, so "any order" is tested without flakiness. */
static void shuffle(sp_event_rec_t *ev, size_t n, uint32_t seed)
{
    for (size_t i = n; i > 1; i--) {
        size_t j;
        sp_event_rec_t t;

        seed = seed * 1664525u + 1013904223u;
        j = (size_t)(seed >> 8) % i;
        t = ev[i - 1];
        ev[i - 1] = ev[j];
        ev[j] = t;
    }
}

/* 4 ranks x 10 instances, rank 2 arrives 100 us after the others; everyone leaves together
 * (a synchronizing collective), so rank 2's duration is the shortest. Plus one compute event per
 * instance with the same seq on rank 1, starting even later, which must be ignored. */
#define LATE_NRANKS 4
#define LATE_NINST 10
#define LATE_N (LATE_NRANKS * LATE_NINST + LATE_NINST)

static void build_late_rank2(sp_event_rec_t *ev)
{
    size_t k = 0;

    for (int i = 0; i < LATE_NINST; i++) {
        int64_t t0 = (int64_t)i * MS + 5 * MS;

        for (int r = 0; r < LATE_NRANKS; r++) {
            int64_t start = t0 + (r == 2 ? 100 * US : 0);

            ev[k++] = coll(r, 100 + (uint64_t)i, start, t0 + 130 * US);
        }
        sp_event_init(&ev[k], 1, SP_EV_COMPUTE);
        ev[k].seq = 100 + (uint64_t)i;
        ev[k].start_ns = t0 + 500 * US;
        ev[k].end_ns = t0 + 600 * US;
        k++;
    }
    shuffle(ev, LATE_N, 7);
}

static void test_late_rank_by_arrival(void **state)
{
    (void)state;
    sp_event_rec_t ev[LATE_N];
    sp_instance_t *inst = NULL;
    size_t ninst = 0;
    uint64_t counts[LATE_NRANKS];

    build_late_rank2(ev);
    assert_int_equal(sp_skew_match(ev, LATE_N, LATE_NRANKS, 1 * US, &inst, &ninst), SP_OK);
    assert_non_null(inst);
    assert_int_equal(ninst, LATE_NINST);
    for (size_t i = 0; i < ninst; i++) {
        assert_int_equal(inst[i].seq, 100 + i); /* sorted by seq */
        assert_int_equal(inst[i].op, 0);
        assert_int_equal(inst[i].nops, 1);
        assert_int_equal(inst[i].nranks_seen, 4);
        assert_true(inst[i].complete);
        assert_int_equal(inst[i].last_rank, 2);
        assert_int_equal(inst[i].first_rank, 0); /* 0, 1, 3 tie: the lowest rank */
        assert_int_equal(inst[i].first_start_ns, (int64_t)i * MS + 5 * MS);
        assert_int_equal(inst[i].last_start_ns, (int64_t)i * MS + 5 * MS + 100 * US);
        assert_int_equal(inst[i].skew_ns, 100 * US);
        assert_int_equal(inst[i].last_margin_ns, 100 * US);
        assert_true(inst[i].resolved);
    }
    sp_skew_last_counts(inst, ninst, LATE_NRANKS, counts);
    assert_int_equal(counts[0], 0);
    assert_int_equal(counts[1], 0);
    assert_int_equal(counts[2], 10);
    assert_int_equal(counts[3], 0);
    free(inst);
}

static void test_waits(void **state)
{
    (void)state;
    sp_event_rec_t ev[LATE_N];
    int64_t wait[LATE_N];

    build_late_rank2(ev);
    assert_int_equal(sp_skew_waits(ev, LATE_N, wait), SP_OK);
    for (size_t i = 0; i < LATE_N; i++) {
        if (ev[i].kind != SP_EV_COLL) {
            assert_int_equal(wait[i], -1);
        } else if (ev[i].rank == 2) {
            assert_int_equal(wait[i], 0);
        } else {
            assert_int_equal(wait[i], 100 * US);
        }
    }
    assert_int_equal(sp_skew_waits(NULL, 0, NULL), SP_OK);
    assert_int_equal(sp_skew_waits(NULL, 1, wait), SP_ERR_INVALID);
}

/* The trap: in a synchronizing collective the late rank's duration is the shortest. */
static void test_longest_duration_names_wrong_rank(void **state)
{
    (void)state;
    /* arrivals 0, 10, 100, 20 us; everyone leaves at 150 us */
    sp_event_rec_t ev[] = {coll(0, 1, 0, 150 * US), coll(1, 1, 10 * US, 150 * US),
                           coll(2, 1, 100 * US, 150 * US), coll(3, 1, 20 * US, 150 * US)};
    sp_instance_t *inst = NULL;
    size_t ninst = 0;
    int longest = -1;
    int64_t longest_ns = -1;

    for (int i = 0; i < 4; i++) {
        if (ev[i].end_ns - ev[i].start_ns > longest_ns) {
            longest_ns = ev[i].end_ns - ev[i].start_ns;
            longest = ev[i].rank;
        }
    }
    assert_int_equal(sp_skew_match(ev, 4, 4, 1 * US, &inst, &ninst), SP_OK);
    assert_int_equal(ninst, 1);
    assert_int_equal(inst[0].last_rank, 2);
    assert_true(inst[0].resolved);
    assert_int_equal(inst[0].first_rank, 0);
    assert_int_equal(inst[0].last_margin_ns, 80 * US);
    assert_int_equal(longest, 0);
    assert_int_not_equal(longest, inst[0].last_rank);
    free(inst);
}

static void test_unresolved_within_err(void **state)
{
    (void)state;
    /* seq 1: the two latest 500 ns apart, err 1 us: cannot be told apart.
     * seq 2: exactly err_ns apart: still not resolved ("more than the error").
     * seq 3: err_ns + 1 apart: resolved.
     * seq 4: the two latest at the same time: never resolved, last is the higher rank. */
    sp_event_rec_t ev[] = {
        coll(0, 1, 0, 1),
        coll(1, 1, 10 * US, 1),
        coll(2, 1, 100 * US, 1),
        coll(3, 1, 100 * US + 500, 1),
        coll(0, 2, 0, 1),
        coll(1, 2, 50 * US, 1),
        coll(2, 2, 50 * US + US, 1),
        coll(0, 3, 0, 1),
        coll(1, 3, 50 * US, 1),
        coll(2, 3, 50 * US + US + 1, 1),
        coll(0, 4, 7 * US, 1),
        coll(1, 4, 7 * US, 1),
        coll(2, 4, 0, 1),
    };
    const size_t n = sizeof(ev) / sizeof(ev[0]);
    sp_instance_t *inst = NULL;
    size_t ninst = 0;
    uint64_t counts[4];

    assert_int_equal(sp_skew_match(ev, n, 4, 1 * US, &inst, &ninst), SP_OK);
    assert_int_equal(ninst, 4);

    assert_int_equal(inst[0].last_rank, 3);
    assert_int_equal(inst[0].last_margin_ns, 500);
    assert_int_equal(inst[0].skew_ns, 100 * US + 500);
    assert_false(inst[0].resolved);

    assert_int_equal(inst[1].last_margin_ns, US);
    assert_false(inst[1].resolved);

    assert_int_equal(inst[2].last_margin_ns, US + 1);
    assert_true(inst[2].resolved);
    assert_int_equal(inst[2].last_rank, 2);

    assert_int_equal(inst[3].last_margin_ns, 0);
    assert_false(inst[3].resolved);
    assert_int_equal(inst[3].last_rank, 1);
    assert_int_equal(inst[3].first_rank, 2);

    /* only seq 3 counts */
    sp_skew_last_counts(inst, ninst, 4, counts);
    assert_int_equal(counts[0], 0);
    assert_int_equal(counts[1], 0);
    assert_int_equal(counts[2], 1);
    assert_int_equal(counts[3], 0);

    /* with a zero error bound the 500 ns and 1 us margins are resolvable */
    free(inst);
    assert_int_equal(sp_skew_match(ev, n, 4, 0, &inst, &ninst), SP_OK);
    assert_true(inst[0].resolved);
    assert_true(inst[1].resolved);
    assert_false(inst[3].resolved);
    free(inst);
}

static void test_missing_ranks(void **state)
{
    (void)state;
    /* seq 5: rank 2 missing; seq 6: rank 3 alone */
    sp_event_rec_t ev[] = {coll(3, 5, 30 * US, 1), coll(0, 5, 0, 1), coll(1, 5, 10 * US, 1),
                           coll(3, 6, 40 * US, 1)};
    sp_instance_t *inst = NULL;
    size_t ninst = 0;
    int64_t wait[4];

    assert_int_equal(sp_skew_match(ev, 4, 4, 1 * US, &inst, &ninst), SP_OK);
    assert_int_equal(ninst, 2);
    assert_int_equal(inst[0].seq, 5);
    assert_int_equal(inst[0].nranks_seen, 3);
    assert_false(inst[0].complete);
    assert_int_equal(inst[0].first_rank, 0);
    assert_int_equal(inst[0].last_rank, 3);
    assert_int_equal(inst[0].skew_ns, 30 * US);
    assert_int_equal(inst[0].last_margin_ns, 20 * US);

    assert_int_equal(inst[1].seq, 6);
    assert_int_equal(inst[1].nranks_seen, 1);
    assert_false(inst[1].complete);
    assert_int_equal(inst[1].first_rank, 3);
    assert_int_equal(inst[1].last_rank, 3);
    assert_int_equal(inst[1].skew_ns, 0);
    assert_int_equal(inst[1].last_margin_ns, 0);
    assert_false(inst[1].resolved); /* nobody to be late for */
    free(inst);

    assert_int_equal(sp_skew_waits(ev, 4, wait), SP_OK);
    assert_int_equal(wait[0], 0);
    assert_int_equal(wait[1], 30 * US);
    assert_int_equal(wait[2], 20 * US);
    assert_int_equal(wait[3], 0);
}

static void test_op_disagreement_and_no_coll(void **state)
{
    (void)state;
    sp_event_rec_t ev[] = {coll(0, 1, 0, 1), coll(1, 1, 5, 6), coll(0, 2, 0, 1), coll(1, 2, 5, 6)};
    sp_event_rec_t other[3];
    sp_instance_t sentinel;
    sp_instance_t *inst = NULL;
    size_t ninst = 0;

    ev[0].op = 3;
    ev[1].op = 3;
    ev[2].op = 3;
    ev[3].op = 4;
    ev[0].nops = 8;
    ev[1].nops = 8;
    ev[2].nops = 8;
    ev[3].nops = 8;
    assert_int_equal(sp_skew_match(ev, 4, 2, 0, &inst, &ninst), SP_OK);
    assert_int_equal(ninst, 2);
    assert_int_equal(inst[0].op, 3);
    assert_int_equal(inst[0].nops, 8);
    assert_int_equal(inst[1].op, -1);
    assert_int_equal(inst[1].nops, 8);
    free(inst);

    ev[3].op = 3;
    ev[3].nops = 4;
    assert_int_equal(sp_skew_match(ev, 4, 2, 0, &inst, &ninst), SP_OK);
    assert_int_equal(inst[1].op, 3);
    assert_int_equal(inst[1].nops, -1);
    free(inst);

    /* only other kinds: no instance, no array */
    sp_event_init(&other[0], 0, SP_EV_COMPUTE);
    sp_event_init(&other[1], 1, SP_EV_SEND);
    sp_event_init(&other[2], 1, SP_EV_BATCH);
    inst = &sentinel; /* to see it replaced */
    ninst = 99;
    assert_int_equal(sp_skew_match(other, 3, 2, 0, &inst, &ninst), SP_OK);
    assert_null(inst);
    assert_int_equal(ninst, 0);
    assert_int_equal(sp_skew_match(NULL, 0, 2, 0, &inst, &ninst), SP_OK);
    assert_int_equal(ninst, 0);
}

/* 3 nodes of 2 ranks; node 1's two ranks arrive together 5 ms after everyone else, so no single
 * rank is last (the rank-level analysis resolves nothing) but node 1 is, every time. One
 * instance has only node 0: nothing to compare. One has node 2 late by less than the error. */
static void test_node_lateness(void **state)
{
    static const int node_of[6] = {0, 0, 1, 1, 2, 2};
    sp_event_rec_t ev[6 * 8 + 2 + 6];
    sp_instance_t *inst = NULL;
    uint64_t count[3];
    int64_t late[3];
    size_t n = 0, ninst = 0, resolved = 0, rank_resolved = 0;
    int64_t median = 0;

    (void)state;
    for (uint64_t seq = 0; seq < 8; seq++) {
        for (int r = 0; r < 6; r++) {
            int64_t t = (int64_t)seq * 100 * MS + (node_of[r] == 1 ? 5 * MS : r * US);
            ev[n++] = coll(r, seq, t, (int64_t)seq * 100 * MS + 6 * MS);
        }
    }
    ev[n++] = coll(0, 100, 0, MS); /* node 0 alone */
    ev[n++] = coll(1, 100, 10, MS);
    for (int r = 0; r < 6; r++) { /* node 2 last by 2 us, within a 10 us error */
        ev[n++] = coll(r, 200, 1000 * MS + (node_of[r] == 2 ? 2 * US : 0), 1001 * MS);
    }
    shuffle(ev, n, 7);
    assert_int_equal(sp_skew_node_lateness(ev, n, node_of, 6, 3, 10 * US, count, late, &resolved),
                     SP_OK);
    assert_int_equal(resolved, 8);
    assert_int_equal(count[1], 8);
    assert_int_equal(count[0], 0);
    assert_int_equal(count[2], 0);
    /* each time 5 ms after the latest rank of the other nodes (rank 5 at 5 us) */
    assert_int_equal(late[1], 8 * (5 * MS - 5 * US));
    /* the rank level cannot tell: the two late ranks arrive at the same time */
    assert_int_equal(sp_skew_match(ev, n, 6, 10 * US, &inst, &ninst), SP_OK);
    assert_int_equal(sp_skew_summary(inst, ninst, &median, &rank_resolved), SP_OK);
    assert_int_equal(rank_resolved, 0);
    free(inst);
    /* bad input */
    {
        static const int bad[6] = {0, 0, 1, 1, 2, 3};
        assert_int_equal(sp_skew_node_lateness(ev, n, bad, 6, 3, 0, count, late, &resolved),
                         SP_ERR_INVALID);
        assert_int_equal(sp_skew_node_lateness(ev, n, NULL, 6, 3, 0, count, late, &resolved),
                         SP_ERR_INVALID);
    }
}

static void test_bad_input(void **state)
{
    (void)state;
    sp_event_rec_t dup[] = {coll(0, 1, 0, 1), coll(1, 1, 5, 6), coll(0, 1, 9, 10)};
    sp_event_rec_t out_of_range[] = {coll(0, 1, 0, 1), coll(2, 1, 5, 6)};
    sp_event_rec_t negative[] = {coll(-1, 1, 0, 1)};
    sp_instance_t sentinel;
    sp_instance_t *inst = &sentinel;
    size_t ninst = 77;

    assert_int_equal(sp_skew_match(dup, 3, 2, 0, &inst, &ninst), SP_ERR_INVALID);
    assert_int_equal(sp_skew_match(out_of_range, 2, 2, 0, &inst, &ninst), SP_ERR_INVALID);
    assert_int_equal(sp_skew_match(negative, 1, 2, 0, &inst, &ninst), SP_ERR_INVALID);
    assert_int_equal(sp_skew_match(dup, 2, 2, -1, &inst, &ninst), SP_ERR_INVALID);
    assert_int_equal(sp_skew_match(dup, 2, 0, 0, &inst, &ninst), SP_ERR_INVALID);
    assert_int_equal(sp_skew_match(NULL, 2, 2, 0, &inst, &ninst), SP_ERR_INVALID);
    assert_int_equal(sp_skew_match(dup, 2, 2, 0, NULL, &ninst), SP_ERR_INVALID);
    assert_int_equal(sp_skew_match(dup, 2, 2, 0, &inst, NULL), SP_ERR_INVALID);
    assert_ptr_equal(inst, &sentinel);
    assert_int_equal(ninst, 77);

    /* the same rank twice in one seq is fine for different kinds, or different seqs */
    dup[2].kind = SP_EV_COMPUTE;
    assert_int_equal(sp_skew_match(dup, 3, 2, 0, &inst, &ninst), SP_OK);
    assert_int_equal(ninst, 1);
    free(inst);
}

static void test_summary(void **state)
{
    (void)state;
    sp_instance_t inst[4];
    int64_t median = 1234;
    size_t resolved = 5678;

    memset(inst, 0, sizeof(inst));
    inst[0].skew_ns = 40;
    inst[1].skew_ns = 10;
    inst[1].resolved = 1;
    inst[2].skew_ns = 30;
    inst[3].skew_ns = 25;
    inst[3].resolved = 1;

    assert_int_equal(sp_skew_summary(inst, 3, &median, &resolved), SP_OK);
    assert_int_equal(median, 30); /* 10 30 40 */
    assert_int_equal(resolved, 1);
    assert_int_equal(sp_skew_summary(inst, 4, &median, &resolved), SP_OK);
    assert_int_equal(median, 27); /* 10 25 30 40: (25 + 30) / 2 rounded down */
    assert_int_equal(resolved, 2);

    median = 1234;
    resolved = 5678;
    assert_int_equal(sp_skew_summary(inst, 0, &median, &resolved), SP_ERR_INVALID);
    assert_int_equal(sp_skew_summary(NULL, 3, &median, &resolved), SP_ERR_INVALID);
    assert_int_equal(sp_skew_summary(inst, 3, NULL, &resolved), SP_ERR_INVALID);
    assert_int_equal(median, 1234);
    assert_int_equal(resolved, 5678);
}

/* 256 ranks x 1000 instances, shuffled with other kinds mixed in: the late rank of instance i
 * is i % 256. A quadratic matcher would need ~3e10 steps here and fail the time bound (and the
 * ctest timeout); the sort-based one takes well under a second. */
static void test_large(void **state)
{
    (void)state;
    const int nranks = 256;
    const size_t ninst_want = 1000;
    const size_t n = (size_t)nranks * ninst_want + ninst_want;
    sp_event_rec_t *ev = malloc(n * sizeof(*ev));
    int64_t *wait = malloc(n * sizeof(*wait));
    uint64_t *counts = malloc((size_t)nranks * sizeof(*counts));
    sp_instance_t *inst = NULL;
    size_t ninst = 0;
    size_t k = 0;
    struct timespec t0, t1;
    double secs;

    assert_non_null(ev);
    assert_non_null(wait);
    assert_non_null(counts);
    for (size_t i = 0; i < ninst_want; i++) {
        int late = (int)(i % (size_t)nranks);

        for (int r = 0; r < nranks; r++) {
            int64_t start = (int64_t)i * MS + r * 10 + (r == late ? 50 * US : 0);

            ev[k++] = coll(r, i, start, (int64_t)i * MS + 200 * US);
        }
        sp_event_init(&ev[k], 0, SP_EV_COMPUTE);
        ev[k].seq = i;
        ev[k].start_ns = (int64_t)i * MS + 900 * US;
        k++;
    }
    shuffle(ev, n, 99);

    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(sp_skew_match(ev, n, nranks, 1 * US, &inst, &ninst), SP_OK);
    assert_int_equal(sp_skew_waits(ev, n, wait), SP_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (secs > 10.0) {
        print_error("matching %zu events took %.2f s\n", n, secs);
        fail();
    }

    assert_int_equal(ninst, ninst_want);
    for (size_t i = 0; i < ninst; i++) {
        int late = (int)(i % (size_t)nranks);

        assert_int_equal(inst[i].last_rank, late);
        assert_true(inst[i].resolved);
        assert_int_equal(inst[i].nranks_seen, nranks);
        assert_int_equal(inst[i].first_rank, late == 0 ? 1 : 0);
    }
    sp_skew_last_counts(inst, ninst, nranks, counts);
    for (int r = 0; r < nranks; r++) {
        /* 1000 = 3 * 256 + 232 */
        assert_int_equal(counts[r], r < 232 ? 4 : 3);
    }
    for (size_t i = 0; i < n; i++) {
        if (ev[i].kind == SP_EV_COLL) {
            int late = (int)(ev[i].seq % (size_t)nranks);
            int64_t last = (int64_t)ev[i].seq * MS + late * 10 + 50 * US;

            assert_int_equal(wait[i], last - ev[i].start_ns);
        } else {
            assert_int_equal(wait[i], -1);
        }
    }
    free(inst);
    free(counts);
    free(wait);
    free(ev);
}

/* Two sweep points in one timeline, 4 ranks x 10 samples each, batches of 1 ms: in the first
 * rank 1 arrives 300 us late every time, in the second the last rank rotates. The points split at
 * step 0 whatever the event order; an instance missing a rank is skipped; rank 1 is named in the
 * first point only, even though its own duration is the shortest there. */
static void test_point_lateness(void **state)
{
    enum { NR = 4, NS = 10 };
    sp_event_rec_t ev[2 * NS * NR + 1];
    sp_late_t *pts = NULL;
    size_t n = 0, npts = 0;
    uint64_t seq = 100;

    (void)state;
    for (int point = 0; point < 2; point++) {
        for (int s = 0; s < NS; s++, seq += 7) {
            int64_t t0 = (int64_t)seq * 10 * MS;
            for (int r = 0; r < NR; r++) {
                int64_t late = point == 0 ? (r == 1 ? 300 * US : r * US)
                                          : (r == s % NR ? 300 * US : r * US);
                ev[n] = coll(r, seq, t0 + late, t0 + 1 * MS + 300 * US);
                ev[n++].step = s;
            }
        }
    }
    /* a lone event of rank 2 (the others dropped theirs) in the middle of point 2 */
    ev[n] = coll(2, seq - 3 * 7 + 1, 0, 1 * MS);
    ev[n++].step = 5;
    shuffle(ev, n, 99);
    assert_int_equal(sp_skew_point_lateness(ev, n, NR, 0, &pts, &npts), SP_OK);
    assert_int_equal(npts, 2);
    assert_int_equal(pts[0].samples, NS);
    assert_int_equal(pts[0].rank, 1);
    assert_int_equal(pts[0].significant, 1);
    assert_true(pts[0].margin_us > 290.0 && pts[0].margin_us < 300.0);
    assert_int_equal(pts[1].samples, NS);
    assert_int_equal(pts[1].significant, 0);
    free(pts);
    assert_int_equal(sp_skew_point_lateness(ev, n, 0, 0, &pts, &npts), SP_ERR_INVALID);
    assert_int_equal(sp_skew_point_lateness(ev, n, NR, -1, &pts, &npts), SP_ERR_INVALID);
    assert_int_equal(sp_skew_point_lateness(NULL, 0, NR, 0, &pts, &npts), SP_OK);
    assert_int_equal(npts, 0);
    assert_null(pts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_late_rank_by_arrival),
        cmocka_unit_test(test_waits),
        cmocka_unit_test(test_longest_duration_names_wrong_rank),
        cmocka_unit_test(test_unresolved_within_err),
        cmocka_unit_test(test_missing_ranks),
        cmocka_unit_test(test_op_disagreement_and_no_coll),
        cmocka_unit_test(test_node_lateness),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_point_lateness),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
