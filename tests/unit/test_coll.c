/* Unit tests of the collective table (collectives/coll.h and the nine collective files): counts
 * against a hand-computed nccl-tests table, bandwidth, and exact verification checked by running
 * every collective on simulated ranks in host memory. */
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
} coll_row_t;

static const coll_row_t coll_rows[SP_COLL_COUNT] = {
    {SP_COLL_ALL_REDUCE, "all_reduce", 1, 0},
    {SP_COLL_ALL_GATHER, "all_gather", 0, 0},
    {SP_COLL_REDUCE_SCATTER, "reduce_scatter", 1, 0},
    {SP_COLL_BROADCAST, "broadcast", 0, 1},
    {SP_COLL_REDUCE, "reduce", 1, 1},
    {SP_COLL_ALLTOALL, "alltoall", 0, 0},
    {SP_COLL_SENDRECV, "sendrecv", 0, 0},
    {SP_COLL_GATHER, "gather", 0, 1},
    {SP_COLL_SCATTER, "scatter", 0, 1},
};

static void test_registry(void **state)
{
    (void)state;
    assert_int_equal(SP_COLL_COUNT, 9);
    for (int k = 0; k < SP_COLL_COUNT; k++) {
        const sp_coll_t *c = sp_coll_get((sp_coll_kind_t)k);

        assert_non_null(c);
        assert_int_equal(coll_rows[k].kind, k);
        assert_int_equal(c->kind, k);
        assert_string_equal(c->name, coll_rows[k].name);
        assert_string_equal(sp_coll_names[k], coll_rows[k].name);
        assert_int_equal(c->has_redop, coll_rows[k].has_redop);
        assert_int_equal(c->has_root, coll_rows[k].has_root);
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
    [SP_COLL_SCATTER] = SHAPE_SCATTER,
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
        [SP_COLL_SCATTER] = 7.86432,
    };
    /* 1000 bytes of float on 3 ranks in 2 us: 1000 B -> 0.5 GB/s, or 80 * 4 * 3 = 960 B -> 0.48 */
    static const double algbw_3[SP_COLL_COUNT] = {
        [SP_COLL_ALL_REDUCE] = 0.5, [SP_COLL_ALL_GATHER] = 0.48, [SP_COLL_REDUCE_SCATTER] = 0.48,
        [SP_COLL_BROADCAST] = 0.5,  [SP_COLL_REDUCE] = 0.5,      [SP_COLL_ALLTOALL] = 0.48,
        [SP_COLL_SENDRECV] = 0.5,   [SP_COLL_GATHER] = 0.48,     [SP_COLL_SCATTER] = 0.48,
    };
    static const double busbw_3[SP_COLL_COUNT] = {
        [SP_COLL_ALL_REDUCE] = 2.0 / 3.0, [SP_COLL_ALL_GATHER] = 0.32,
        [SP_COLL_REDUCE_SCATTER] = 0.32,  [SP_COLL_BROADCAST] = 0.5,
        [SP_COLL_REDUCE] = 0.5,           [SP_COLL_ALLTOALL] = 0.32,
        [SP_COLL_SENDRECV] = 0.5,         [SP_COLL_GATHER] = 0.32,
        [SP_COLL_SCATTER] = 0.32,
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

/* ---- verification: the collectives run on simulated ranks ---- */

/* Where MPI / NCCL read a rank's input and write its output in one in-place buffer, by their
 * definitions (not by the table's offsets): MPI_IN_PLACE all_gather and gather take rank r's
 * block from the receive buffer at r * count; NCCL's in-place reduce_scatter and scatter write
 * rank r's block at r * count of the send buffer. Everything else starts at 0. */
static size_t inplace_input_at(sp_coll_kind_t kind, int rank, size_t param)
{
    if (kind == SP_COLL_ALL_GATHER || kind == SP_COLL_GATHER) {
        return (size_t)rank * param;
    }
    return 0;
}

static size_t inplace_output_at(sp_coll_kind_t kind, int rank, size_t param)
{
    if (kind == SP_COLL_REDUCE_SCATTER || kind == SP_COLL_SCATTER) {
        return (size_t)rank * param;
    }
    return 0;
}

/* Independent exactness limits (two's complement and IEEE ranges). */
static int representable(sp_dtype_t dt, double v)
{
    if (!isfinite(v)) {
        return 0;
    }
    switch (dt) {
    case SP_DTYPE_INT8:
        return v == floor(v) && v >= -128.0 && v <= 127.0;
    case SP_DTYPE_UINT8:
        return v == floor(v) && v >= 0.0 && v <= 255.0;
    case SP_DTYPE_INT32:
        return v == floor(v) && v >= -2147483648.0 && v <= 2147483647.0;
    case SP_DTYPE_UINT32:
        return v == floor(v) && v >= 0.0 && v <= 4294967295.0;
    case SP_DTYPE_INT64:
    case SP_DTYPE_UINT64:
        return v == floor(v) && fabs(v) <= 9007199254740992.0 && (dt == SP_DTYPE_INT64 || v >= 0);
    case SP_DTYPE_HALF:
        return fabs(v) <= 65504.0 && sp_dtype_round(dt, v) == v;
    default:
        return sp_dtype_round(dt, v) == v;
    }
}

/* Reduce element g over the snapshot of every rank's input, one rank at a time in the given
 * direction, rounding to the type after each step; every partial must be exact. */
static double reduce_element(const double *inputs, size_t stride, int n, size_t g, sp_dtype_t dt,
                             sp_redop_t op, int reverse, int *inexact_p)
{
    double acc = inputs[(size_t)(reverse ? n - 1 : 0) * stride + g];

    for (int j = 1; j < n; j++) {
        int r = reverse ? n - 1 - j : j;
        double v = sp_redop_apply(op, acc, inputs[(size_t)r * stride + g]);

        if (!representable(dt, v)) {
            *inexact_p = 1;
        }
        acc = sp_dtype_round(dt, v);
    }
    if (op == SP_REDOP_AVG) {
        acc = sp_redop_avg_finish(dt, acc, n);
    }
    return acc;
}

typedef struct {
    sp_coll_kind_t kind;
    sp_dtype_t dtype;
    sp_redop_t redop;
    int n;
    int root;
    int in_place;
    size_t count; /* requested elements, as the sweep passes size / elt */
} sim_case_t;

/* One rank's args for a simulated case. */
static sp_coll_args_t sim_args(const sim_case_t *sc, int rank, const sp_coll_counts_t *c)
{
    sp_coll_args_t a;

    memset(&a, 0, sizeof(a));
    a.kind = sc->kind;
    a.rank = rank;
    a.nranks = sc->n;
    a.dtype = sc->dtype;
    a.redop = sc->redop;
    a.root = sc->root;
    a.in_place = sc->in_place;
    a.counts = *c;
    return a;
}

static int rank_is_checked(int r, const sim_case_t *sc)
{
    /* every rank up to 8; ends, middle and root beyond, to keep the run short */
    return sc->n <= 8 || r < 2 || r >= sc->n - 2 || r == sc->n / 2 || r == sc->root;
}

/* Whether a rank has an output, per the collective's definition. */
static int rank_has_output(const sim_case_t *sc, int r)
{
    switch (sc->kind) {
    case SP_COLL_REDUCE:
    case SP_COLL_GATHER:
        return r == sc->root;
    case SP_COLL_BROADCAST:
        return sc->in_place || r != sc->root; /* out-of-place MPI_Bcast has no root output */
    default:
        return 1;
    }
}

static void fail_case(const sim_case_t *sc, int rank, const char *what, size_t i, double got,
                      double want)
{
    print_error("%s %s %s n=%d root=%d %s rank %d: %s at %zu: got %.17g, expected %.17g\n",
                sp_coll_names[sc->kind], sp_dtype_name(sc->dtype), sp_redop_name(sc->redop), sc->n,
                sc->root, sc->in_place ? "in-place" : "out-of-place", rank, what, i, got, want);
    fail();
}

static void simulate(const sim_case_t *sc)
{
    const sp_coll_t *coll = sp_coll_get(sc->kind);
    size_t esize = sp_dtype_size(sc->dtype);
    int n = sc->n;
    sp_coll_counts_t c;
    size_t buf_elems;
    size_t send_elems;
    unsigned char *bufs;  /* n buffers: in-place the one buffer, else the receive buffer */
    unsigned char *sends; /* n send buffers (out-of-place) */
    double *inputs;       /* n x send_count: what each rank contributes */
    double *reduced = NULL;
    size_t nred = 0;
    const size_t guard = 4; /* poisoned elements after the send region */

    coll->get_counts(sc->count, esize, n, &c);
    assert_true(c.param_count > 0);
    send_elems = c.send_count + guard;
    buf_elems = (c.send_count > c.recv_count ? c.send_count : c.recv_count) + guard;
    bufs = malloc((size_t)n * buf_elems * esize);
    sends = malloc((size_t)n * send_elems * esize);
    inputs = malloc((size_t)n * c.send_count * sizeof(double));
    assert_non_null(bufs);
    assert_non_null(sends);
    assert_non_null(inputs);
    memset(bufs, 0xA5, (size_t)n * buf_elems * esize);
    memset(sends, 0xA5, (size_t)n * send_elems * esize);

    /* 1. every rank writes its input where the sweep puts it */
    for (int r = 0; r < n; r++) {
        sp_coll_args_t a = sim_args(sc, r, &c);
        unsigned char *buf = bufs + (size_t)r * buf_elems * esize;
        unsigned char *send = sends + (size_t)r * send_elems * esize;
        unsigned char *in = sc->in_place ? buf + c.send_inplace_offset * (size_t)r * esize : send;
        const unsigned char *src;

        sp_coll_fill(coll, &a, in);
        if (!sc->in_place) {
            /* sp_coll_fill writes send_count elements, no more */
            for (size_t b = c.send_count * esize; b < send_elems * esize; b++) {
                if (send[b] != 0xA5) {
                    fail_case(sc, r, "fill wrote past send_count", b / esize, send[b], 0xA5);
                }
            }
        }
        /* 2. what the operation reads as this rank's input */
        src = sc->in_place ? buf + inplace_input_at(sc->kind, r, c.param_count) * esize : send;
        for (size_t j = 0; j < c.send_count; j++) {
            inputs[(size_t)r * c.send_count + j] = sp_dtype_get(sc->dtype, src, j);
        }
    }

    /* 3. reductions, in rank order and in reverse order */
    if (coll->has_redop) {
        nred = sc->kind == SP_COLL_REDUCE_SCATTER ? c.send_count : c.param_count;
        reduced = malloc(nred * sizeof(double));
        assert_non_null(reduced);
        for (size_t g = 0; g < nred; g++) {
            int inexact = 0;

            /* reduce_scatter on many ranks: only the blocks of the ranks that are checked */
            if (sc->kind == SP_COLL_REDUCE_SCATTER &&
                !rank_is_checked((int)(g / c.param_count), sc)) {
                reduced[g] = NAN;
                continue;
            }
            double fwd =
                reduce_element(inputs, c.send_count, n, g, sc->dtype, sc->redop, 0, &inexact);
            double rev =
                reduce_element(inputs, c.send_count, n, g, sc->dtype, sc->redop, 1, &inexact);

            if (inexact) {
                fail_case(sc, -1, "a partial reduction is not exact in the type", g, fwd, rev);
            }
            if (fwd != rev) {
                fail_case(sc, -1, "the result depends on the reduction order", g, fwd, rev);
            }
            reduced[g] = fwd;
        }
    }

    /* 4. each rank's output, written where the operation writes it, then checked */
    for (int r = 0; r < n; r++) {
        sp_coll_args_t a = sim_args(sc, r, &c);
        unsigned char *buf = bufs + (size_t)r * buf_elems * esize;
        unsigned char *out =
            buf + (sc->in_place ? inplace_output_at(sc->kind, r, c.param_count) : 0) * esize;
        unsigned char *checked =
            buf + (sc->in_place ? c.recv_inplace_offset * (size_t)r : 0) * esize;
        size_t p = c.param_count;
        int has_out = rank_has_output(sc, r);

        if (!rank_is_checked(r, sc)) {
            continue;
        }
        if (coll->has_output(&a) != has_out) {
            fail_case(sc, r, "has_output", 0, coll->has_output(&a), has_out);
        }
        if (!has_out) {
            /* nothing to verify: the check passes whatever the buffer holds */
            assert_int_equal(sp_coll_check(coll, &a, checked), 0);
            continue;
        }
        for (size_t i = 0; i < c.recv_count; i++) {
            double v;

            switch (sc->kind) {
            case SP_COLL_ALL_REDUCE:
            case SP_COLL_REDUCE:
                v = reduced[i];
                break;
            case SP_COLL_REDUCE_SCATTER:
                v = reduced[(size_t)r * p + i];
                break;
            case SP_COLL_ALL_GATHER:
            case SP_COLL_GATHER:
                v = inputs[(i / p) * c.send_count + i % p];
                break;
            case SP_COLL_ALLTOALL:
                v = inputs[(i / p) * c.send_count + (size_t)r * p + i % p];
                break;
            case SP_COLL_BROADCAST:
                v = inputs[(size_t)sc->root * c.send_count + i];
                break;
            case SP_COLL_SENDRECV:
                v = inputs[(size_t)((r - 1 + n) % n) * c.send_count + i];
                break;
            case SP_COLL_SCATTER:
                v = inputs[(size_t)sc->root * c.send_count + (size_t)r * p + i];
                break;
            default:
                v = NAN;
                break;
            }
            sp_dtype_set(sc->dtype, out, i, v);
        }
        /* the hooks' expected values are exactly what the operation produced */
        for (size_t i = 0; i < c.recv_count; i++) {
            double got = sp_dtype_get(sc->dtype, checked, i);
            double want = sp_coll_expected(coll, &a, i);

            if (!(got == want)) {
                fail_case(sc, r, "expected() differs from the simulated output", i, got, want);
            }
        }
        assert_int_equal(sp_coll_check(coll, &a, checked), 0);

        /* one corrupted element is exactly one wrong value */
        {
            size_t k = c.recv_count / 2;
            double orig = sp_dtype_get(sc->dtype, checked, k);
            double bad = orig == 1.0 ? 2.0 : 1.0;
            uint64_t wrong;

            sp_dtype_set(sc->dtype, checked, k, bad);
            wrong = sp_coll_check(coll, &a, checked);
            if (wrong != 1) {
                fail_case(sc, r, "wrong count after corrupting one element", k, (double)wrong, 1.0);
            }
            sp_dtype_set(sc->dtype, checked, k, orig);
        }
    }
    free(reduced);
    free(inputs);
    free(sends);
    free(bufs);
}

static const int sim_nranks[] = {1, 2, 3, 4, 7, 8, 64, 300};

/* A requested count for which the per-rank count is a few 16-byte units plus a remainder that the
 * rounding drops, so every layout is exercised with data. */
static size_t sim_count(sp_coll_kind_t kind, sp_dtype_t dt, int n)
{
    size_t align = 16 / sp_dtype_size(dt);
    size_t units = n <= 8 ? 3 : 1;

    if (coll_shape[kind] == SHAPE_WHOLE) {
        return 101;
    }
    return (size_t)n * align * units + (size_t)(n - 1);
}

/* Every dtype, every redop (where the collective has one), every n, up to three roots, in-place
 * and out-of-place. */
static void verify_collective(sp_coll_kind_t kind)
{
    const sp_coll_t *coll = sp_coll_get(kind);

    for (int d = 0; d < SP_DTYPE_COUNT; d++) {
        for (int o = 0; o < SP_REDOP_COUNT; o++) {
            /* the redop means nothing to data movement: one pass is enough there */
            if (!coll->has_redop && o > 0) {
                continue;
            }
            for (size_t ni = 0; ni < sizeof(sim_nranks) / sizeof(sim_nranks[0]); ni++) {
                int n = sim_nranks[ni];
                int roots[3] = {0, n / 2, n - 1};
                int nroots = coll->has_root ? 3 : 1;

                for (int ri = 0; ri < nroots; ri++) {
                    if (ri > 0 && (roots[ri] == roots[ri - 1] || roots[ri] == roots[0])) {
                        continue;
                    }
                    for (int ip = 0; ip < 2; ip++) {
                        sim_case_t sc = {kind,
                                         (sp_dtype_t)d,
                                         (sp_redop_t)o,
                                         n,
                                         roots[ri],
                                         ip,
                                         sim_count(kind, (sp_dtype_t)d, n)};
                        simulate(&sc);
                    }
                }
            }
        }
    }
}

static void test_verification_all_reduce(void **state)
{
    (void)state;
    verify_collective(SP_COLL_ALL_REDUCE);
}

static void test_verification_all_gather(void **state)
{
    (void)state;
    verify_collective(SP_COLL_ALL_GATHER);
}

static void test_verification_reduce_scatter(void **state)
{
    (void)state;
    verify_collective(SP_COLL_REDUCE_SCATTER);
}

static void test_verification_broadcast(void **state)
{
    (void)state;
    verify_collective(SP_COLL_BROADCAST);
}

static void test_verification_reduce(void **state)
{
    (void)state;
    verify_collective(SP_COLL_REDUCE);
}

static void test_verification_alltoall(void **state)
{
    (void)state;
    verify_collective(SP_COLL_ALLTOALL);
}

static void test_verification_sendrecv(void **state)
{
    (void)state;
    verify_collective(SP_COLL_SENDRECV);
}

static void test_verification_gather(void **state)
{
    (void)state;
    verify_collective(SP_COLL_GATHER);
}

static void test_verification_scatter(void **state)
{
    (void)state;
    verify_collective(SP_COLL_SCATTER);
}

static void test_check_counts_every_wrong_element(void **state)
{
    const sp_coll_t *coll = sp_coll_get(SP_COLL_ALL_REDUCE);
    sp_coll_args_t a = make_args(SP_COLL_ALL_REDUCE, 37 * 4, SP_DTYPE_FLOAT, 4);
    float out[37];

    (void)state;
    for (size_t i = 0; i < 37; i++) {
        out[i] = (float)sp_coll_expected(coll, &a, i);
    }
    assert_int_equal(sp_coll_check(coll, &a, out), 0);
    out[0] = NAN; /* NaN is never a right answer */
    out[36] += 1.0f;
    assert_int_equal(sp_coll_check(coll, &a, out), 2);
    for (size_t i = 0; i < 37; i++) {
        out[i] = -1.0f; /* no expected value is negative */
    }
    assert_int_equal(sp_coll_check(coll, &a, out), 37);
}

static void test_fill_is_deterministic_and_rank_dependent(void **state)
{
    (void)state;
    /* the same args give the same input; a data-movement collective's ranks differ somewhere */
    for (int k = 0; k < SP_COLL_COUNT; k++) {
        const sp_coll_t *coll = sp_coll_get((sp_coll_kind_t)k);
        sp_coll_args_t a = make_args((sp_coll_kind_t)k, 4096, SP_DTYPE_INT32, 4);
        int32_t x[1024];
        int32_t y[1024];
        int32_t z[1024];

        assert_true(a.counts.send_count <= 1024);
        a.rank = 1;
        sp_coll_fill(coll, &a, x);
        sp_coll_fill(coll, &a, y);
        assert_memory_equal(x, y, a.counts.send_count * sizeof(int32_t));
        a.rank = 2;
        sp_coll_fill(coll, &a, z);
        assert_memory_not_equal(x, z, a.counts.send_count * sizeof(int32_t));
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
        cmocka_unit_test(test_verification_all_reduce),
        cmocka_unit_test(test_verification_all_gather),
        cmocka_unit_test(test_verification_reduce_scatter),
        cmocka_unit_test(test_verification_broadcast),
        cmocka_unit_test(test_verification_reduce),
        cmocka_unit_test(test_verification_alltoall),
        cmocka_unit_test(test_verification_sendrecv),
        cmocka_unit_test(test_verification_gather),
        cmocka_unit_test(test_verification_scatter),
        cmocka_unit_test(test_check_counts_every_wrong_element),
        cmocka_unit_test(test_fill_is_deterministic_and_rank_dependent),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
