/* GEMM compute of the host backend (host_gemm.h). */
#include "host_gemm.h"

#include <stdio.h>
#include <stdlib.h>

#include "blas.h"
#include "gemm_call.h"

struct sp_host_gemm {
    sp_blas_t blas;
    float *a, *b, *c;
    int threads;
};

void sp_host_gemm_destroy(sp_host_gemm_t *g)
{
    if (g == NULL) {
        return;
    }
    free(g->a);
    free(g->b);
    free(g->c);
    sp_blas_close(&g->blas);
    free(g);
}

/* Small values of both signs: sums of products stay far from overflow whatever k is. */
static float *filled(size_t count, unsigned mul, unsigned mod)
{
    float *x = malloc(count * sizeof(*x));

    for (size_t i = 0; x != NULL && i < count; i++) {
        x[i] = ((float)((i * mul) % mod) - (float)(mod / 2)) / 64.0f;
    }
    return x;
}

sp_status_t sp_host_gemm_create(const sp_gemm_t *shapes, size_t n, int threads, char *desc,
                                size_t desclen, sp_host_gemm_t **g_p)
{
    sp_host_gemm_t *g = calloc(1, sizeof(*g));
    size_t elems[3], na, nb, nc;

    if (g == NULL) {
        snprintf(desc, desclen, "out of memory");
        return SP_ERR_NOMEM;
    }
    if (!sp_blas_open(&g->blas)) {
        snprintf(desc, desclen, "no CBLAS library found (tried %s): install libopenblas0 for "
                 "the host GEMM compute", sp_blas_tried);
        sp_host_gemm_destroy(g);
        return SP_ERR_UNSUPPORTED;
    }
    g->threads = sp_blas_threads(&g->blas, threads);
    sp_gemm_operand_elems(shapes, n, elems);
    na = elems[0];
    nb = elems[1];
    nc = elems[2];
    g->a = filled(na, 7, 13);
    g->b = filled(nb, 5, 11);
    g->c = filled(nc, 3, 7); /* touched now: no first-touch faults in the timed GEMMs */
    if (g->a == NULL || g->b == NULL || g->c == NULL) {
        snprintf(desc, desclen, "cannot allocate the GEMM operands (%.3g GB in fp32)",
                 (double)(na + nb + nc) * sizeof(float) / 1e9);
        sp_host_gemm_destroy(g);
        return SP_ERR_NOMEM;
    }
    snprintf(desc, desclen, "%s (%s), fp32, %d BLAS thread%s", g->blas.name,
             g->blas.config != NULL ? g->blas.config() : "CBLAS", g->threads,
             g->threads == 1 ? "" : "s");
    *g_p = g;
    return SP_OK;
}

/* One strided-batched call as the batch's sgemm calls, column major (gemm_call.h). */
static sp_status_t host_call(void *ctx, const sp_gemm_call_t *c)
{
    sp_host_gemm_t *g = ctx;

    for (int j = 0; j < c->batch; j++) {
        g->blas.sgemm(SP_CBLAS_COL_MAJOR, SP_CBLAS_NO_TRANS, SP_CBLAS_NO_TRANS, c->m, c->n, c->k,
                      1.0f, g->a + j * c->stride_a, c->lda, g->b + j * c->stride_b, c->ldb, 0.0f,
                      g->c + j * c->stride_c, c->ldc);
    }
    return SP_OK;
}

void sp_host_gemm_run(void *ctx, const void *list, size_t n)
{
    /* every entry was among the shapes given at creation, which sized the operands */
    (void)sp_gemm_list_issue(list, n, host_call, ctx);
}
