/* Unit tests of the collective table (collectives/coll.h and the collective files): counts
 * against a hand-computed nccl-tests table, bandwidth, and the all_to_allv matrix written out by
 * hand. test_coll_sim.c runs every collective on simulated ranks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "dtype.h"

static void assert_close(double actual, double expected, double rel)
{
    if (!(fabs(actual - expected) <= rel * fabs(expected))) {
        print_error("expected %.17g, got %.17g\n", expected, actual);
        fail();
    }
}

/* ---- the registry ---- */

typedef struct {
    sp_coll_kind_t kind;
    const char *name;
    int has_redop;
    int has_root;
    sp_comm_pattern_t pattern;
} coll_row_t;

static const coll_row_t coll_rows[SP_COLL_COUNT] = {
    {SP_COLL_ALL_REDUCE, "all_reduce", 1, 0, SP_COMM_ALLREDUCE},
    {SP_COLL_ALL_GATHER, "all_gather", 0, 0, SP_COMM_ALLGATHER},
    {SP_COLL_REDUCE_SCATTER, "reduce_scatter", 1, 0, SP_COMM_REDUCE_SCATTER},
    {SP_COLL_BROADCAST, "broadcast", 0, 1, SP_COMM_BCAST},
    {SP_COLL_REDUCE, "reduce", 1, 1, SP_COMM_REDUCE},
    {SP_COLL_ALLTOALL, "alltoall", 0, 0, SP_COMM_ALLTOALL},
    {SP_COLL_SENDRECV, "sendrecv", 0, 0, SP_COMM_SENDRECV},
    {SP_COLL_GATHER, "gather", 0, 1, SP_COMM_GATHER},
    {SP_COLL_SCATTER, "scatter", 0, 1, SP_COMM_SCATTER},
    {SP_COLL_ALLTOALLV, "alltoallv", 0, 0, SP_COMM_ALLTOALLV},
};

static void test_registry(void **state)
{
    (void)state;
    assert_int_equal(SP_COLL_COUNT, 10);
    for (int k = 0; k < SP_COLL_COUNT; k++) {
        const sp_coll_t *c = sp_coll_get((sp_coll_kind_t)k);

        assert_non_null(c);
        assert_int_equal(coll_rows[k].kind, k);
        assert_int_equal(c->kind, k);
        assert_string_equal(c->name, coll_rows[k].name);
        assert_string_equal(sp_coll_names[k], coll_rows[k].name);
        assert_int_equal(c->has_redop, coll_rows[k].has_redop);
        assert_int_equal(c->has_root, coll_rows[k].has_root);
        assert_int_equal(c->pattern, coll_rows[k].pattern);
        assert_non_null(c->get_counts);
        assert_non_null(c->algbw_bytes);
        assert_non_null(c->busbw_factor);
        assert_non_null(c->has_output);
        assert_non_null(c->describe_output);
    }
    assert_null(sp_coll_get(SP_COLL_COUNT));
    assert_null(sp_coll_get((sp_coll_kind_t)-1));
}

/* ---- counts: hand-computed ---- */

static void test_per_rank_count(void **state)
{
    (void)state;
    /* count/n, then down to a multiple of 16 bytes (16/elt elements) */
    assert_int_equal(sp_coll_per_rank_count(250, 4, 3), 80);         /* 83 -> 80 */
    assert_int_equal(sp_coll_per_rank_count(1048576, 1, 7), 149792); /* 149796 -> 149792 */
    assert_int_equal(sp_coll_per_rank_count(8, 1, 1), 0);            /* below 16 bytes */
    assert_int_equal(sp_coll_per_rank_count(16, 1, 1), 16);
    assert_int_equal(sp_coll_per_rank_count(31, 1, 1), 16);
    assert_int_equal(sp_coll_per_rank_count(32, 1, 2), 16);
    assert_int_equal(sp_coll_per_rank_count(63, 1, 2), 16); /* 31 -> 16 */
    assert_int_equal(sp_coll_per_rank_count(15, 8, 1), 14);
    assert_int_equal(sp_coll_per_rank_count(1, 8, 1), 0);
    assert_int_equal(sp_coll_per_rank_count(2, 8, 1), 2);
    assert_int_equal(sp_coll_per_rank_count(500, 2, 6), 80); /* 83 -> 80 */
    assert_int_equal(sp_coll_per_rank_count(131072, 8, 5), 26214);
    assert_int_equal(sp_coll_per_rank_count(0, 4, 3), 0);
}

/* base = per-rank count for n = 1..8 for each size and element size, worked out apart from the
 * code (count/n, then down to a multiple of 16/elt): e.g. 250/3 = 83 -> 80, 1048576/7 = 149796 ->
 * 149792. */
typedef struct {
    size_t size_bytes;
    size_t elt;
    size_t count;
    size_t base[8];
} base_row_t;

static const base_row_t base_rows[] = {
    {8, 1, 8, {0, 0, 0, 0, 0, 0, 0, 0}},
    {8, 2, 4, {0, 0, 0, 0, 0, 0, 0, 0}},
    {8, 4, 2, {0, 0, 0, 0, 0, 0, 0, 0}},
    {8, 8, 1, {0, 0, 0, 0, 0, 0, 0, 0}},
    {64, 1, 64, {64, 32, 16, 16, 0, 0, 0, 0}},
    {64, 2, 32, {32, 16, 8, 8, 0, 0, 0, 0}},
    {64, 4, 16, {16, 8, 4, 4, 0, 0, 0, 0}},
    {64, 8, 8, {8, 4, 2, 2, 0, 0, 0, 0}},
    {1000, 1, 1000, {992, 496, 320, 240, 192, 160, 128, 112}},
    {1000, 2, 500, {496, 248, 160, 120, 96, 80, 64, 56}},
    {1000, 4, 250, {248, 124, 80, 60, 48, 40, 32, 28}},
    {1000, 8, 125, {124, 62, 40, 30, 24, 20, 16, 14}},
    {1048576, 1, 1048576, {1048576, 524288, 349520, 262144, 209712, 174752, 149792, 131072}},
    {1048576, 2, 524288, {524288, 262144, 174760, 131072, 104856, 87376, 74896, 65536}},
    {1048576, 4, 262144, {262144, 131072, 87380, 65536, 52428, 43688, 37448, 32768}},
    {1048576, 8, 131072, {131072, 65536, 43690, 32768, 26214, 21844, 18724, 16384}},
    {1048580, 1, 1048580, {1048576, 524288, 349520, 262144, 209712, 174752, 149792, 131072}},
    {1048580, 2, 524290, {524288, 262144, 174760, 131072, 104856, 87376, 74896, 65536}},
    {1048580, 4, 262145, {262144, 131072, 87380, 65536, 52428, 43688, 37448, 32768}},
    {1048580, 8, 131072, {131072, 65536, 43690, 32768, 26214, 21844, 18724, 16384}},
};

/* The four count layouts of nccl-tests, per collective. */
typedef enum { SHAPE_WHOLE, SHAPE_GATHER, SHAPE_SCATTER, SHAPE_ALLTOALL } shape_t;

static const shape_t coll_shape[SP_COLL_COUNT] = {
    [SP_COLL_ALL_REDUCE] = SHAPE_WHOLE,       [SP_COLL_ALL_GATHER] = SHAPE_GATHER,
    [SP_COLL_REDUCE_SCATTER] = SHAPE_SCATTER, [SP_COLL_BROADCAST] = SHAPE_WHOLE,
    [SP_COLL_REDUCE] = SHAPE_WHOLE,           [SP_COLL_ALLTOALL] = SHAPE_ALLTOALL,
    [SP_COLL_SENDRECV] = SHAPE_WHOLE,         [SP_COLL_GATHER] = SHAPE_GATHER,
    [SP_COLL_SCATTER] = SHAPE_SCATTER,       [SP_COLL_ALLTOALLV] = SHAPE_ALLTOALL,
};

static void assert_counts(const char *what, const sp_coll_counts_t *c, size_t send, size_t recv,
                          size_t param, size_t soff, size_t roff)
{
    if (c->send_count != send || c->recv_count != recv || c->param_count != param ||
        c->send_inplace_offset != soff || c->recv_inplace_offset != roff) {
        print_error("%s: got send %zu recv %zu param %zu soff %zu roff %zu, expected %zu %zu %zu "
                    "%zu %zu\n",
                    what, c->send_count, c->recv_count, c->param_count, c->send_inplace_offset,
                    c->recv_inplace_offset, send, recv, param, soff, roff);
        fail();
    }
}

static void test_counts_table(void **state)
{
    char what[128];

    (void)state;
    for (size_t i = 0; i < sizeof(base_rows) / sizeof(base_rows[0]); i++) {
        const base_row_t *r = &base_rows[i];

        assert_int_equal(r->size_bytes / r->elt, r->count);
        for (int n = 1; n <= 8; n++) {
            size_t b = r->base[n - 1];

            assert_int_equal(sp_coll_per_rank_count(r->count, r->elt, n), b);
            for (int k = 0; k < SP_COLL_COUNT; k++) {
                sp_coll_counts_t c;

                memset(&c, 0xff, sizeof(c));
                sp_coll_get((sp_coll_kind_t)k)->get_counts(r->count, r->elt, n, &c);
                snprintf(what, sizeof(what), "%s size %zu elt %zu n %d", coll_rows[k].name,
                         r->size_bytes, r->elt, n);
                switch (coll_shape[k]) {
                case SHAPE_WHOLE:
                    assert_counts(what, &c, r->count, r->count, r->count, 0, 0);
                    break;
                case SHAPE_GATHER:
                    assert_counts(what, &c, b, b * (size_t)n, b, b, 0);
                    break;
                case SHAPE_SCATTER:
                    assert_counts(what, &c, b * (size_t)n, b, b, 0, b);
                    break;
                case SHAPE_ALLTOALL:
                    assert_counts(what, &c, b * (size_t)n, b * (size_t)n, b, 0, 0);
                    break;
                }
            }
        }
    }
}

/* Whole rows written out, every number literal, with the size column (max(send, recv) bytes). */
typedef struct {
    sp_coll_kind_t kind;
    size_t count;
    sp_dtype_t dtype;
    int n;
    size_t send, recv, param, soff, roff;
    uint64_t size_bytes;
} literal_row_t;

static const literal_row_t literal_rows[] = {
    /* 1000 bytes of float on 3 ranks: count 250, base 83 -> 80 */
    {SP_COLL_ALL_REDUCE, 250, SP_DTYPE_FLOAT, 3, 250, 250, 250, 0, 0, 1000},
    {SP_COLL_ALL_GATHER, 250, SP_DTYPE_FLOAT, 3, 80, 240, 80, 80, 0, 960},
    {SP_COLL_REDUCE_SCATTER, 250, SP_DTYPE_FLOAT, 3, 240, 80, 80, 0, 80, 960},
    {SP_COLL_BROADCAST, 250, SP_DTYPE_FLOAT, 3, 250, 250, 250, 0, 0, 1000},
    {SP_COLL_REDUCE, 250, SP_DTYPE_FLOAT, 3, 250, 250, 250, 0, 0, 1000},
    {SP_COLL_ALLTOALL, 250, SP_DTYPE_FLOAT, 3, 240, 240, 80, 0, 0, 960},
    {SP_COLL_SENDRECV, 250, SP_DTYPE_FLOAT, 3, 250, 250, 250, 0, 0, 1000},
    {SP_COLL_GATHER, 250, SP_DTYPE_FLOAT, 3, 80, 240, 80, 80, 0, 960},
    {SP_COLL_SCATTER, 250, SP_DTYPE_FLOAT, 3, 240, 80, 80, 0, 80, 960},
    {SP_COLL_ALLTOALLV, 250, SP_DTYPE_FLOAT, 3, 240, 240, 80, 0, 0, 960},
    /* 1 MiB of int8 on 7 ranks: base 149796 -> 149792, 7 * 149792 = 1048544 */
    {SP_COLL_ALL_REDUCE, 1048576, SP_DTYPE_INT8, 7, 1048576, 1048576, 1048576, 0, 0, 1048576},
    {SP_COLL_ALL_GATHER, 1048576, SP_DTYPE_INT8, 7, 149792, 1048544, 149792, 149792, 0, 1048544},
    {SP_COLL_REDUCE_SCATTER, 1048576, SP_DTYPE_INT8, 7, 1048544, 149792, 149792, 0, 149792,
     1048544},
    {SP_COLL_BROADCAST, 1048576, SP_DTYPE_INT8, 7, 1048576, 1048576, 1048576, 0, 0, 1048576},
    {SP_COLL_REDUCE, 1048576, SP_DTYPE_INT8, 7, 1048576, 1048576, 1048576, 0, 0, 1048576},
    {SP_COLL_ALLTOALL, 1048576, SP_DTYPE_INT8, 7, 1048544, 1048544, 149792, 0, 0, 1048544},
    {SP_COLL_SENDRECV, 1048576, SP_DTYPE_INT8, 7, 1048576, 1048576, 1048576, 0, 0, 1048576},
    {SP_COLL_GATHER, 1048576, SP_DTYPE_INT8, 7, 149792, 1048544, 149792, 149792, 0, 1048544},
    {SP_COLL_SCATTER, 1048576, SP_DTYPE_INT8, 7, 1048544, 149792, 149792, 0, 149792, 1048544},
    /* 1 MiB + 4 bytes of double on 8 ranks: count 131072, base 16384, 8 * 16384 = 131072 */
    {SP_COLL_ALL_GATHER, 131072, SP_DTYPE_DOUBLE, 8, 16384, 131072, 16384, 16384, 0, 1048576},
    {SP_COLL_REDUCE_SCATTER, 131072, SP_DTYPE_DOUBLE, 8, 131072, 16384, 16384, 0, 16384, 1048576},
    /* 1000 bytes of half on 6 ranks: count 500, base 83 -> 80 */
    {SP_COLL_ALLTOALL, 500, SP_DTYPE_HALF, 6, 480, 480, 80, 0, 0, 960},
    {SP_COLL_GATHER, 500, SP_DTYPE_HALF, 6, 80, 480, 80, 80, 0, 960},
    /* 8 bytes of int8 on 1 rank: below 16 bytes per rank, nothing moves */
    {SP_COLL_ALL_GATHER, 8, SP_DTYPE_INT8, 1, 0, 0, 0, 0, 0, 0},
    {SP_COLL_ALL_REDUCE, 8, SP_DTYPE_INT8, 1, 8, 8, 8, 0, 0, 8},
};

static void test_counts_literal_rows(void **state)
{
    char what[128];

    (void)state;
    for (size_t i = 0; i < sizeof(literal_rows) / sizeof(literal_rows[0]); i++) {
        const literal_row_t *r = &literal_rows[i];
        sp_coll_args_t args;

        memset(&args, 0, sizeof(args));
        args.kind = r->kind;
        args.nranks = r->n;
        args.dtype = r->dtype;
        sp_coll_get(r->kind)->get_counts(r->count, sp_dtype_size(r->dtype), r->n, &args.counts);
        snprintf(what, sizeof(what), "row %zu (%s)", i, coll_rows[r->kind].name);
        assert_counts(what, &args.counts, r->send, r->recv, r->param, r->soff, r->roff);
        assert_int_equal(sp_coll_size_bytes(&args), r->size_bytes);
    }
}

/* ---- bandwidth ---- */

static void test_busbw_factors(void **state)
{
    static const double two_nm1_n[8] = {0.0, 1.0, 4.0 / 3.0, 1.5, 1.6, 5.0 / 3.0, 12.0 / 7.0, 1.75};
    static const double nm1_n[8] = {0.0, 0.5, 2.0 / 3.0, 0.75, 0.8, 5.0 / 6.0, 6.0 / 7.0, 0.875};

    (void)state;
    for (int n = 1; n <= 8; n++) {
        for (int k = 0; k < SP_COLL_COUNT; k++) {
            double f = sp_coll_get((sp_coll_kind_t)k)->busbw_factor(n);
            double want;

            switch (k) {
            case SP_COLL_ALL_REDUCE:
                want = two_nm1_n[n - 1];
                break;
            case SP_COLL_BROADCAST:
            case SP_COLL_REDUCE:
            case SP_COLL_SENDRECV:
                want = 1.0;
                break;
            default:
                want = nm1_n[n - 1];
                break;
            }
            if (!(fabs(f - want) <= 1e-15)) {
                print_error("%s n=%d: factor %.17g, expected %.17g\n", coll_rows[k].name, n, f,
                            want);
                fail();
            }
        }
    }
}

/* Args for `size_bytes` of dtype on n ranks, counts from the collective itself. */
static sp_coll_args_t make_args(sp_coll_kind_t kind, size_t size_bytes, sp_dtype_t dtype, int n)
{
    sp_coll_args_t a;
    size_t elt = sp_dtype_size(dtype);

    memset(&a, 0, sizeof(a));
    a.kind = kind;
    a.nranks = n;
    a.dtype = dtype;
    sp_coll_get(kind)->get_counts(size_bytes / elt, elt, n, &a.counts);
    return a;
}

static void test_bandwidth_values(void **state)
{
    /* 1 MiB of float on 4 ranks in 100 us: every collective moves 1048576 algbw bytes (all_gather
     * and co: 65536 * 4 B * 4 ranks), 1048576 B / 100 us = 10.48576 GB/s */
    static const double busbw_4[SP_COLL_COUNT] = {
        [SP_COLL_ALL_REDUCE] = 15.72864,    [SP_COLL_ALL_GATHER] = 7.86432,
        [SP_COLL_REDUCE_SCATTER] = 7.86432, [SP_COLL_BROADCAST] = 10.48576,
        [SP_COLL_REDUCE] = 10.48576,        [SP_COLL_ALLTOALL] = 7.86432,
        [SP_COLL_SENDRECV] = 10.48576,      [SP_COLL_GATHER] = 7.86432,
        [SP_COLL_SCATTER] = 7.86432,        [SP_COLL_ALLTOALLV] = 7.86432,
    };
    /* 1000 bytes of float on 3 ranks in 2 us: 1000 B -> 0.5 GB/s, or 80 * 4 * 3 = 960 B -> 0.48 */
    static const double algbw_3[SP_COLL_COUNT] = {
        [SP_COLL_ALL_REDUCE] = 0.5, [SP_COLL_ALL_GATHER] = 0.48, [SP_COLL_REDUCE_SCATTER] = 0.48,
        [SP_COLL_BROADCAST] = 0.5,  [SP_COLL_REDUCE] = 0.5,      [SP_COLL_ALLTOALL] = 0.48,
        [SP_COLL_SENDRECV] = 0.5,   [SP_COLL_GATHER] = 0.48,     [SP_COLL_SCATTER] = 0.48,
        [SP_COLL_ALLTOALLV] = 0.48,
    };
    static const double busbw_3[SP_COLL_COUNT] = {
        [SP_COLL_ALL_REDUCE] = 2.0 / 3.0, [SP_COLL_ALL_GATHER] = 0.32,
        [SP_COLL_REDUCE_SCATTER] = 0.32,  [SP_COLL_BROADCAST] = 0.5,
        [SP_COLL_REDUCE] = 0.5,           [SP_COLL_ALLTOALL] = 0.32,
        [SP_COLL_SENDRECV] = 0.5,         [SP_COLL_GATHER] = 0.32,
        [SP_COLL_SCATTER] = 0.32,         [SP_COLL_ALLTOALLV] = 0.32,
    };

    (void)state;
    for (int k = 0; k < SP_COLL_COUNT; k++) {
        const sp_coll_t *c = sp_coll_get((sp_coll_kind_t)k);
        sp_coll_args_t a = make_args((sp_coll_kind_t)k, 1048576, SP_DTYPE_FLOAT, 4);
        double algbw = 0.0;
        double busbw = 0.0;

        assert_close(c->algbw_bytes(&a), 1048576.0, 1e-15);
        sp_coll_bandwidth(c, &a, 100.0, &algbw, &busbw);
        assert_close(algbw, 10.48576, 1e-12);
        assert_close(busbw, busbw_4[k], 1e-12);

        a = make_args((sp_coll_kind_t)k, 1000, SP_DTYPE_FLOAT, 3);
        sp_coll_bandwidth(c, &a, 2.0, &algbw, &busbw);
        assert_close(algbw, algbw_3[k], 1e-12);
        assert_close(busbw, busbw_3[k], 1e-12);

        /* one rank: algbw is still a rate, busbw is not meaningful */
        a = make_args((sp_coll_kind_t)k, 1048576, SP_DTYPE_FLOAT, 1);
        sp_coll_bandwidth(c, &a, 100.0, &algbw, &busbw);
        assert_close(algbw, 10.48576, 1e-12);
        assert_true(isnan(busbw));
    }
}

static void test_algbw_bytes_elt_sizes(void **state)
{
    (void)state;
    /* param * elt for all_reduce, param * elt * n for all_gather, on the hand table */
    for (size_t i = 0; i < sizeof(base_rows) / sizeof(base_rows[0]); i++) {
        const base_row_t *r = &base_rows[i];
        sp_dtype_t dt = r->elt == 1   ? SP_DTYPE_UINT8
                        : r->elt == 2 ? SP_DTYPE_HALF
                        : r->elt == 4 ? SP_DTYPE_INT32
                                      : SP_DTYPE_INT64;

        for (int n = 1; n <= 8; n++) {
            sp_coll_args_t a = make_args(SP_COLL_ALL_REDUCE, r->size_bytes, dt, n);
            sp_coll_args_t g = make_args(SP_COLL_ALL_GATHER, r->size_bytes, dt, n);

            assert_close(sp_coll_get(SP_COLL_ALL_REDUCE)->algbw_bytes(&a),
                         (double)(r->count * r->elt), 1e-15);
            assert_true(sp_coll_get(SP_COLL_ALL_GATHER)->algbw_bytes(&g) ==
                        (double)(r->base[n - 1] * r->elt * (size_t)n));
        }
    }
}

/* ---- all_to_allv: the traffic matrix, written out by hand ---- */

/* 1000 B of float on 3 ranks: 80 * 3 = 240 elements per rank, 60 units of 16 B; weights 1, 2, 3
 * by distance (W = 6) give cumulative units 0, 10, 30, 60, i.e. flows of 40, 80, 120 elements at
 * distances 0, 1, 2. Rank r sends 40 to itself, 80 to r+1 and 120 to r+2 (= r-1). */
static const size_t a2av_send[3][3] = {{40, 80, 120}, {120, 40, 80}, {80, 120, 40}};
static const size_t a2av_send_displ[3][3] = {{0, 40, 120}, {0, 120, 160}, {0, 80, 200}};
static const size_t a2av_recv[3][3] = {{40, 120, 80}, {80, 40, 120}, {120, 80, 40}};
static const size_t a2av_recv_displ[3][3] = {{0, 40, 160}, {0, 80, 120}, {0, 120, 200}};

static void test_alltoallv_counts_and_displacements(void **state)
{
    (void)state;
    for (int r = 0; r < 3; r++) {
        sp_coll_args_t a = make_args(SP_COLL_ALLTOALLV, 1000, SP_DTYPE_FLOAT, 3);
        sp_coll_op_t op;

        a.rank = r;
        assert_int_equal(sp_coll_op_init(&op, &a), SP_OK);
        assert_int_equal(op.call.pattern, SP_COMM_ALLTOALLV);
        for (int p = 0; p < 3; p++) {
            assert_int_equal(op.call.v.send_counts[p], a2av_send[r][p]);
            assert_int_equal(op.call.v.send_displs[p], a2av_send_displ[r][p]);
            assert_int_equal(op.call.v.recv_counts[p], a2av_recv[r][p]);
            assert_int_equal(op.call.v.recv_displs[p], a2av_recv_displ[r][p]);
        }
        sp_coll_op_cleanup(&op);
    }
}

/* Rank 1's output: 80 elements of rank 0 from its index 40, 40 of rank 1 from 120, 120 of rank 2
 * from 80, each element the data pattern of its source at its index in the source's input. */
static void test_alltoallv_expected_output(void **state)
{
    sp_coll_args_t a = make_args(SP_COLL_ALLTOALLV, 1000, SP_DTYPE_FLOAT, 3);
    static const struct {
        size_t at;
        int src;
        size_t index;
    } probes[] = {{0, 0, 40}, {79, 0, 119}, {80, 1, 120}, {119, 1, 159},
                  {120, 2, 80}, {239, 2, 199}};
    float out[240];

    (void)state;
    a.rank = 1;
    for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
        assert_true(sp_coll_expected(sp_coll_get(SP_COLL_ALLTOALLV), &a, probes[i].at) ==
                    sp_pattern_data(probes[i].src, probes[i].index));
    }
    assert_true(isnan(sp_coll_expected(sp_coll_get(SP_COLL_ALLTOALLV), &a, 240)));
    for (size_t i = 0; i < 240; i++) {
        out[i] = (float)sp_coll_expected(sp_coll_get(SP_COLL_ALLTOALLV), &a, i);
    }
    assert_int_equal(sp_coll_check(sp_coll_get(SP_COLL_ALLTOALLV), &a, out), 0);
    /* a block shifted by one element is wrong almost everywhere */
    memmove(out + 81, out + 80, 39 * sizeof(float));
    assert_true(sp_coll_check(sp_coll_get(SP_COLL_ALLTOALLV), &a, out) >= 30);
}

/* On 1..9 ranks and several sizes: every rank sends and receives the alltoall total, flows are
 * whole 16-byte units, the matrix depends on the distance only, a rank's flows grow with the
 * distance, and the blocks are packed in rank order. */
static void test_alltoallv_matrix_properties(void **state)
{
    static const size_t sizes[] = {0, 16, 1000, 4096 + 24, 1048576};

    (void)state;
    for (int n = 1; n <= 9; n++) {
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
            size_t sent[9] = {0};
            size_t total = 0;
            size_t first[9];

            for (int r = 0; r < n; r++) {
                sp_coll_args_t a = make_args(SP_COLL_ALLTOALLV, sizes[si], SP_DTYPE_HALF, n);
                const sp_comm_vcounts_t *v;
                sp_coll_op_t op;
                size_t mine = 0;
                size_t got = 0;

                a.rank = r;
                assert_int_equal(sp_coll_op_init(&op, &a), SP_OK);
                v = &op.call.v;
                total = a.counts.send_count;
                assert_int_equal(total, a.counts.param_count * (size_t)n);
                assert_int_equal(op.nspans, (size_t)n);
                for (int p = 0; p < n; p++) {
                    int k = (p - r + n) % n;
                    assert_int_equal(v->send_counts[p] % 8, 0);
                    assert_int_equal(v->send_displs[p], mine);
                    assert_int_equal(v->recv_displs[p], got);
                    assert_int_equal(op.spans[p].offset, got);
                    assert_int_equal(op.spans[p].count, v->recv_counts[p]);
                    if (r == 0) {
                        first[k] = v->send_counts[p];
                    }
                    assert_int_equal(v->send_counts[p], first[k]);
                    assert_true(k == 0 || first[k] >= first[k - 1]);
                    mine += v->send_counts[p];
                    got += v->recv_counts[p];
                    sent[p] += v->send_counts[p];
                }
                assert_int_equal(mine, total);
                assert_int_equal(got, total);
                sp_coll_op_cleanup(&op);
            }
            for (int p = 0; p < n; p++) {
                assert_int_equal(sent[p], total); /* what everyone sends to p is p's total */
            }
            /* not uniform once there are enough units: most to the predecessor, least to self */
            if (n > 1 && total / 8 >= (size_t)(n * (n + 1) / 2)) {
                assert_true(first[n - 1] > first[0]);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_per_rank_count),
        cmocka_unit_test(test_counts_table),
        cmocka_unit_test(test_counts_literal_rows),
        cmocka_unit_test(test_busbw_factors),
        cmocka_unit_test(test_bandwidth_values),
        cmocka_unit_test(test_algbw_bytes_elt_sizes),
        cmocka_unit_test(test_alltoallv_counts_and_displacements),
        cmocka_unit_test(test_alltoallv_expected_output),
        cmocka_unit_test(test_alltoallv_matrix_properties),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
