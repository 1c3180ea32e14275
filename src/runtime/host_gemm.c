/* GEMM compute of the host backend (host_gemm.h). */
#include "host_gemm.h"

#include <stdio.h>
#include <stdlib.h>

#include "blas.h"

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
    size_t na = 1, nb = 1, nc = 1;

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
    for (size_t i = 0; i < n; i++) {
        const sp_gemm_t *s = &shapes[i];
        size_t a = (size_t)(s->batch * s->m * s->k), b = (size_t)(s->batch * s->k * s->n);
        size_t c = (size_t)(s->batch * s->m * s->n);
        na = a > na ? a : na;
        nb = b > nb ? b : nb;
        nc = c > nc ? c : nc;
    }
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

void sp_host_gemm_run(void *ctx, const void *list, size_t n)
{
    sp_host_gemm_t *g = ctx;
    const sp_gemm_t *l = list;

    for (size_t i = 0; i < n; i++) {
        const sp_gemm_t *e = &l[i];
        int m = (int)e->m, nn = (int)e->n, k = (int)e->k;
        for (int64_t rep = 0; rep < e->count; rep++) {
            for (int64_t j = 0; j < e->batch; j++) {
                /* the batch's products side by side in the operands, as a strided batch */
                g->blas.sgemm(SP_CBLAS_ROW_MAJOR, SP_CBLAS_NO_TRANS, SP_CBLAS_NO_TRANS, m, nn, k,
                              1.0f, g->a + j * e->m * e->k, k, g->b + j * e->k * e->n, nn, 0.0f,
                              g->c + j * e->m * e->n, nn);
            }
        }
    }
}
