/* The host device of `scaleprobe node`: a STREAM-style triad on host memory and GEMMs through
 * OpenBLAS's CBLAS, one BLAS thread per rank (the ranks of a node run concurrently, one per
 * core or device, as a job's ranks would). */
#include "node_dev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blas.h"
#include "dtype.h"
#include "timeutil.h"

#define TRIAD_SCALAR 3.0

typedef struct {
    sp_blas_t blas;
    size_t nelem;     /* triad elements per array */
    double *a, *b, *c;
    size_t n;         /* GEMM n */
    float *fa, *fb, *fc;
    double *da, *db, *dc;
    int threads;      /* BLAS threads after openblas_set_num_threads(1) */
} host_t;

static int host_supported(sp_node_kind_t kind)
{
    return kind == SP_NODE_TRIAD || kind == SP_NODE_GEMM_F32 || kind == SP_NODE_GEMM_F64 ||
           kind == SP_NODE_GEMM_F16 || kind == SP_NODE_GEMM_BF16;
}

/* half and bfloat16 have no host GEMM in CBLAS: they are computed, and reported, as float */
static int host_gemm_dtype(sp_node_kind_t kind)
{
    return kind == SP_NODE_GEMM_F64 ? SP_DTYPE_DOUBLE : SP_DTYPE_FLOAT;
}

static void host_destroy(void *state)
{
    host_t *h = state;

    if (h == NULL) {
        return;
    }
    free(h->a);
    free(h->b);
    free(h->c);
    free(h->fa);
    free(h->fb);
    free(h->fc);
    free(h->da);
    free(h->db);
    free(h->dc);
    sp_blas_close(&h->blas);
    free(h);
}

/* Small values of both signs, the same on every rank: results are comparable bit for bit */
static double pattern(size_t i, unsigned mul, unsigned mod)
{
    return ((double)((i * mul) % mod) - (double)(mod / 2)) / 16.0;
}

static sp_status_t host_create(const sp_node_dev_cfg_t *cfg, void **state_p, char *err,
                               size_t errlen)
{
    host_t *h = calloc(1, sizeof(*h));
    int want_f = (cfg->kinds & ((1u << SP_NODE_GEMM_F32) | (1u << SP_NODE_GEMM_F16) |
                                (1u << SP_NODE_GEMM_BF16))) != 0;
    int want_d = (cfg->kinds & (1u << SP_NODE_GEMM_F64)) != 0;
    size_t nn;

    if (h == NULL) {
        goto nomem;
    }
    h->threads = 1;
    if ((want_f || want_d) && !sp_blas_open(&h->blas)) {
        snprintf(err, errlen, "no CBLAS library found (tried %s): install libopenblas0 for the "
                              "host GEMMs", sp_blas_tried);
        host_destroy(h);
        return SP_ERR_UNSUPPORTED;
    }
    /* one thread per rank: the rank is the unit measured, and co-located ranks must not
     * oversubscribe the cores with BLAS threads */
    h->threads = sp_blas_threads(&h->blas, 1);
    if (cfg->kinds & (1u << SP_NODE_TRIAD)) {
        h->nelem = cfg->mem_bytes / sizeof(double);
        h->a = malloc(h->nelem * sizeof(double));
        h->b = malloc(h->nelem * sizeof(double));
        h->c = malloc(h->nelem * sizeof(double));
        if (h->a == NULL || h->b == NULL || h->c == NULL) {
            goto nomem;
        }
        /* touch every page now, so first-touch faults stay out of the timed calls */
        for (size_t i = 0; i < h->nelem; i++) {
            h->a[i] = 0.0;
            h->b[i] = 1.0;
            h->c[i] = 2.0;
        }
    }
    h->n = cfg->gemm_n;
    nn = h->n * h->n;
    if (want_f) {
        h->fa = malloc(nn * sizeof(float));
        h->fb = malloc(nn * sizeof(float));
        h->fc = calloc(nn, sizeof(float));
        if (h->fa == NULL || h->fb == NULL || h->fc == NULL) {
            goto nomem;
        }
        for (size_t i = 0; i < nn; i++) {
            h->fa[i] = (float)pattern(i, 7, 13);
            h->fb[i] = (float)pattern(i, 5, 11);
        }
    }
    if (want_d) {
        h->da = malloc(nn * sizeof(double));
        h->db = malloc(nn * sizeof(double));
        h->dc = calloc(nn, sizeof(double));
        if (h->da == NULL || h->db == NULL || h->dc == NULL) {
            goto nomem;
        }
        for (size_t i = 0; i < nn; i++) {
            h->da[i] = pattern(i, 7, 13);
            h->db[i] = pattern(i, 5, 11);
        }
    }
    *state_p = h;
    return SP_OK;
nomem:
    snprintf(err, errlen, "cannot allocate host buffers (triad %zu B x 3, GEMM n %zu)",
             cfg->mem_bytes, cfg->gemm_n);
    host_destroy(h);
    return SP_ERR_NOMEM;
}

static sp_status_t host_run(void *state, sp_node_kind_t kind, uint64_t *ns_p)
{
    host_t *h = state;
    const int n = (int)h->n;
    uint64_t t0;
    uint64_t t1;

    switch (kind) {
    case SP_NODE_TRIAD: {
        double *restrict a = h->a;
        const double *restrict b = h->b;
        const double *restrict c = h->c;
        t0 = sp_time_ns();
        for (size_t i = 0; i < h->nelem; i++) {
            a[i] = b[i] + TRIAD_SCALAR * c[i];
        }
        t1 = sp_time_ns();
        break;
    }
    case SP_NODE_GEMM_F32:
    case SP_NODE_GEMM_F16:
    case SP_NODE_GEMM_BF16:
        t0 = sp_time_ns();
        h->blas.sgemm(SP_CBLAS_ROW_MAJOR, SP_CBLAS_NO_TRANS, SP_CBLAS_NO_TRANS, n, n, n, 1.0f,
                      h->fa, n, h->fb, n, 0.0f, h->fc, n);
        t1 = sp_time_ns();
        break;
    case SP_NODE_GEMM_F64:
        t0 = sp_time_ns();
        h->blas.dgemm(SP_CBLAS_ROW_MAJOR, SP_CBLAS_NO_TRANS, SP_CBLAS_NO_TRANS, n, n, n, 1.0,
                      h->da, n, h->db, n, 0.0, h->dc, n);
        t1 = sp_time_ns();
        break;
    default:
        return SP_ERR_UNSUPPORTED;
    }
    *ns_p = t1 - t0;
    return SP_OK;
}

static size_t host_result_bytes(const void *state, sp_node_kind_t kind)
{
    const host_t *h = state;

    if (!host_supported(kind) || kind == SP_NODE_TRIAD) {
        return 0;
    }
    return h->n * h->n * (kind == SP_NODE_GEMM_F64 ? sizeof(double) : sizeof(float));
}

static sp_status_t host_result(void *state, sp_node_kind_t kind, void *out)
{
    host_t *h = state;
    const void *src = kind == SP_NODE_GEMM_F64 ? (const void *)h->dc : (const void *)h->fc;

    if (src == NULL || host_result_bytes(h, kind) == 0) {
        return SP_ERR_UNSUPPORTED;
    }
    memcpy(out, src, host_result_bytes(h, kind));
    return SP_OK;
}

static void host_describe(const void *state, char *out, size_t outlen)
{
    const host_t *h = state;

    if (h == NULL || h->blas.lib == NULL) {
        snprintf(out, outlen, "none loaded (no GEMM kind selected)");
        return;
    }
    snprintf(out, outlen, "%s (%s), %d thread per rank", h->blas.name,
             h->blas.config != NULL ? h->blas.config() : "CBLAS", h->threads);
}

const sp_node_dev_ops_t sp_node_host_ops = {
    .name = "host",
    .create = host_create,
    .destroy = host_destroy,
    .supported = host_supported,
    .gemm_dtype = host_gemm_dtype,
    .run = host_run,
    .result_bytes = host_result_bytes,
    .result = host_result,
    .describe = host_describe,
};
