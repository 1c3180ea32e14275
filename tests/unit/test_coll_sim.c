/* Exact verification of the collective table (collectives/coll.h and the collective files),
 * checked by running every collective on simulated ranks in host memory: the hooks' expected
 * output must be exactly what the operation produces from the inputs the hooks write. */
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

/* Rank r's contribution to element g: its input, times its scalar under premulsum (rounded to
 * the type, as NCCL's pre-operation stores it). */
static double contribution(const double *inputs, size_t stride, int r, size_t g, sp_dtype_t dt,
                           sp_redop_t op)
{
    double x = inputs[(size_t)r * stride + g];

    return op == SP_REDOP_PREMULSUM ? sp_dtype_round(dt, sp_redop_premul_scalar(r) * x) : x;
}

/* Reduce element g over the snapshot of every rank's input, one rank at a time in the given
 * direction, rounding to the type after each step; every partial must be exact. */
static double reduce_element(const double *inputs, size_t stride, int n, size_t g, sp_dtype_t dt,
                             sp_redop_t op, int reverse, int *inexact_p)
{
    double acc = contribution(inputs, stride, reverse ? n - 1 : 0, g, dt, op);

    for (int j = 1; j < n; j++) {
        int r = reverse ? n - 1 - j : j;
        double v = sp_redop_apply(op, acc, contribution(inputs, stride, r, g, dt, op));

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

/* Reference all_to_allv matrix, from its definition in docs/METHODOLOGY.md rather than from
 * the collective's code: flows in 16-byte units, the flow of distance k carrying
 * floor(T S(k+1) / W) - floor(T S(k) / W) units of the T a rank sends, S(k) = k(k+1)/2,
 * W = S(n). */
static size_t ref_flow(const sp_coll_counts_t *c, sp_dtype_t dt, int n, int src, int dst)
{
    uint64_t align = 16 / sp_dtype_size(dt);
    uint64_t t = c->send_count / align;
    uint64_t w = (uint64_t)n * (uint64_t)(n + 1) / 2;
    uint64_t k = (uint64_t)((dst - src + n) % n);

    return (size_t)((t * ((k + 1) * (k + 2) / 2) / w - t * (k * (k + 1) / 2) / w) * align);
}

/* Output element i of rank r of all_to_allv: blocks from ranks 0..n-1 in order, block s holding
 * s's input from where s's flows to ranks below r end. */
static double ref_alltoallv(const sim_case_t *sc, const sp_coll_counts_t *c, const double *inputs,
                            int r, size_t i)
{
    size_t start = 0;

    for (int s = 0; s < sc->n; s++) {
        size_t len = ref_flow(c, sc->dtype, sc->n, s, r);
        if (i < start + len) {
            size_t displ = 0;
            for (int q = 0; q < r; q++) {
                displ += ref_flow(c, sc->dtype, sc->n, s, q);
            }
            return inputs[(size_t)s * c->send_count + displ + (i - start)];
        }
        start += len;
    }
    return NAN;
}

/* The simulated ranks' buffers. */
typedef struct {
    const sim_case_t *sc;
    const sp_coll_t *coll;
    sp_coll_counts_t c;
    size_t esize;
    size_t buf_elems;
    size_t send_elems;
    unsigned char *bufs;  /* n buffers: in-place the one buffer, else the receive buffer */
    unsigned char *sends; /* n send buffers (out-of-place) */
    double *inputs;       /* n x send_count: what each rank contributes */
    double *reduced;
} sim_t;

#define SIM_GUARD 4 /* poisoned elements after the send region */

static void sim_alloc(sim_t *s, const sim_case_t *sc)
{
    int n = sc->n;

    memset(s, 0, sizeof(*s));
    s->sc = sc;
    s->coll = sp_coll_get(sc->kind);
    s->esize = sp_dtype_size(sc->dtype);
    s->coll->get_counts(sc->count, s->esize, n, &s->c);
    assert_true(s->c.param_count > 0);
    s->send_elems = s->c.send_count + SIM_GUARD;
    s->buf_elems =
        (s->c.send_count > s->c.recv_count ? s->c.send_count : s->c.recv_count) + SIM_GUARD;
    s->bufs = malloc((size_t)n * s->buf_elems * s->esize);
    s->sends = malloc((size_t)n * s->send_elems * s->esize);
    s->inputs = malloc((size_t)n * s->c.send_count * sizeof(double));
    assert_non_null(s->bufs);
    assert_non_null(s->sends);
    assert_non_null(s->inputs);
    memset(s->bufs, 0xA5, (size_t)n * s->buf_elems * s->esize);
    memset(s->sends, 0xA5, (size_t)n * s->send_elems * s->esize);
}

static void sim_free(sim_t *s)
{
    free(s->reduced);
    free(s->inputs);
    free(s->sends);
    free(s->bufs);
}

/* 1. every rank writes its input where the sweep puts it; 2. what the operation reads */
static void sim_inputs(sim_t *s)
{
    const sim_case_t *sc = s->sc;
    const sp_coll_counts_t *c = &s->c;
    size_t esize = s->esize;

    for (int r = 0; r < sc->n; r++) {
        sp_coll_args_t a = sim_args(sc, r, c);
        unsigned char *buf = s->bufs + (size_t)r * s->buf_elems * esize;
        unsigned char *send = s->sends + (size_t)r * s->send_elems * esize;
        unsigned char *in = sc->in_place ? buf + c->send_inplace_offset * (size_t)r * esize : send;
        const unsigned char *src;

        sp_coll_fill(s->coll, &a, in);
        if (!sc->in_place) {
            /* sp_coll_fill writes send_count elements, no more */
            for (size_t b = c->send_count * esize; b < s->send_elems * esize; b++) {
                if (send[b] != 0xA5) {
                    fail_case(sc, r, "fill wrote past send_count", b / esize, send[b], 0xA5);
                }
            }
        }
        src = sc->in_place ? buf + inplace_input_at(sc->kind, r, c->param_count) * esize : send;
        for (size_t j = 0; j < c->send_count; j++) {
            s->inputs[(size_t)r * c->send_count + j] = sp_dtype_get(sc->dtype, src, j);
        }
    }
}

/* 3. reductions, in rank order and in reverse order */
static void sim_reduce(sim_t *s)
{
    const sim_case_t *sc = s->sc;
    const sp_coll_counts_t *c = &s->c;
    size_t nred = sc->kind == SP_COLL_REDUCE_SCATTER ? c->send_count : c->param_count;

    s->reduced = malloc(nred * sizeof(double));
    assert_non_null(s->reduced);
    for (size_t g = 0; g < nred; g++) {
        int inexact = 0;
        double fwd;
        double rev;

        /* reduce_scatter on many ranks: only the blocks of the ranks that are checked */
        if (sc->kind == SP_COLL_REDUCE_SCATTER && !rank_is_checked((int)(g / c->param_count), sc)) {
            s->reduced[g] = NAN;
            continue;
        }
        fwd = reduce_element(s->inputs, c->send_count, sc->n, g, sc->dtype, sc->redop, 0, &inexact);
        rev = reduce_element(s->inputs, c->send_count, sc->n, g, sc->dtype, sc->redop, 1, &inexact);
        if (inexact) {
            fail_case(sc, -1, "a partial reduction is not exact in the type", g, fwd, rev);
        }
        if (fwd != rev) {
            fail_case(sc, -1, "the result depends on the reduction order", g, fwd, rev);
        }
        s->reduced[g] = fwd;
    }
}

/* What the operation leaves in output element i of rank r, by its definition. */
static double sim_output(const sim_t *s, int r, size_t i)
{
    const sim_case_t *sc = s->sc;
    size_t p = s->c.param_count;
    size_t stride = s->c.send_count;

    switch (sc->kind) {
    case SP_COLL_ALL_REDUCE:
    case SP_COLL_REDUCE:
        return s->reduced[i];
    case SP_COLL_REDUCE_SCATTER:
        return s->reduced[(size_t)r * p + i];
    case SP_COLL_ALL_GATHER:
    case SP_COLL_GATHER:
        return s->inputs[(i / p) * stride + i % p];
    case SP_COLL_ALLTOALL:
        return s->inputs[(i / p) * stride + (size_t)r * p + i % p];
    case SP_COLL_ALLTOALLV:
        return ref_alltoallv(sc, &s->c, s->inputs, r, i);
    case SP_COLL_BROADCAST:
        return s->inputs[(size_t)sc->root * stride + i];
    case SP_COLL_SENDRECV:
        return s->inputs[(size_t)((r - 1 + sc->n) % sc->n) * stride + i];
    case SP_COLL_SCATTER:
        return s->inputs[(size_t)sc->root * stride + (size_t)r * p + i];
    default:
        return NAN;
    }
}

/* 4. rank r's output, written where the operation writes it, then checked */
static void sim_check_rank(sim_t *s, int r)
{
    const sim_case_t *sc = s->sc;
    const sp_coll_counts_t *c = &s->c;
    sp_coll_args_t a = sim_args(sc, r, c);
    unsigned char *buf = s->bufs + (size_t)r * s->buf_elems * s->esize;
    unsigned char *out =
        buf + (sc->in_place ? inplace_output_at(sc->kind, r, c->param_count) : 0) * s->esize;
    unsigned char *checked =
        buf + (sc->in_place ? c->recv_inplace_offset * (size_t)r : 0) * s->esize;
    int has_out = rank_has_output(sc, r);

    if (s->coll->has_output(&a) != has_out) {
        fail_case(sc, r, "has_output", 0, s->coll->has_output(&a), has_out);
    }
    if (!has_out) {
        /* nothing to verify: the check passes whatever the buffer holds */
        assert_int_equal(sp_coll_check(s->coll, &a, checked), 0);
        return;
    }
    for (size_t i = 0; i < c->recv_count; i++) {
        sp_dtype_set(sc->dtype, out, i, sim_output(s, r, i));
    }
    /* the hooks' expected values are exactly what the operation produced */
    for (size_t i = 0; i < c->recv_count; i++) {
        double got = sp_dtype_get(sc->dtype, checked, i);
        double want = sp_coll_expected(s->coll, &a, i);

        if (!(got == want)) {
            fail_case(sc, r, "expected() differs from the simulated output", i, got, want);
        }
    }
    assert_int_equal(sp_coll_check(s->coll, &a, checked), 0);

    /* one corrupted element is exactly one wrong value */
    {
        size_t k = c->recv_count / 2;
        double orig = sp_dtype_get(sc->dtype, checked, k);
        double bad = orig == 1.0 ? 2.0 : 1.0;
        uint64_t wrong;

        sp_dtype_set(sc->dtype, checked, k, bad);
        wrong = sp_coll_check(s->coll, &a, checked);
        if (wrong != 1) {
            fail_case(sc, r, "wrong count after corrupting one element", k, (double)wrong, 1.0);
        }
        sp_dtype_set(sc->dtype, checked, k, orig);
    }
}

static void simulate(const sim_case_t *sc)
{
    sim_t s;

    sim_alloc(&s, sc);
    sim_inputs(&s);
    if (s.coll->has_redop) {
        sim_reduce(&s);
    }
    for (int r = 0; r < sc->n; r++) {
        if (rank_is_checked(r, sc)) {
            sim_check_rank(&s, r);
        }
    }
    sim_free(&s);
}

static const int sim_nranks[] = {1, 2, 3, 4, 7, 8, 64, 300};

/* A requested count for which the per-rank count is a few 16-byte units plus a remainder that the
 * rounding drops, so every layout is exercised with data. */
static size_t sim_count(sp_coll_kind_t kind, sp_dtype_t dt, int n)
{
    size_t align = 16 / sp_dtype_size(dt);
    size_t units = n <= 8 ? 3 : 1;

    if (kind == SP_COLL_ALL_REDUCE || kind == SP_COLL_BROADCAST || kind == SP_COLL_REDUCE ||
        kind == SP_COLL_SENDRECV) {
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
                    /* in-place alltoallv is no operation (docs/METHODOLOGY.md) */
                    for (int ip = 0; ip < (kind == SP_COLL_ALLTOALLV ? 1 : 2); ip++) {
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

static void test_verification_alltoallv(void **state)
{
    (void)state;
    verify_collective(SP_COLL_ALLTOALLV);
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
        cmocka_unit_test(test_verification_all_reduce),
        cmocka_unit_test(test_verification_all_gather),
        cmocka_unit_test(test_verification_reduce_scatter),
        cmocka_unit_test(test_verification_broadcast),
        cmocka_unit_test(test_verification_reduce),
        cmocka_unit_test(test_verification_alltoall),
        cmocka_unit_test(test_verification_sendrecv),
        cmocka_unit_test(test_verification_gather),
        cmocka_unit_test(test_verification_scatter),
        cmocka_unit_test(test_verification_alltoallv),
        cmocka_unit_test(test_check_counts_every_wrong_element),
        cmocka_unit_test(test_fill_is_deterministic_and_rank_dependent),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
