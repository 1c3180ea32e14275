/* Bootstrap ratio of medians and Benjamini-Hochberg (see abstats.h). */
#include "abstats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* xorshift64*: small, fast and good enough to draw resampling indices. */
static uint64_t next_u64(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static size_t draw(uint64_t *s, size_t n)
{
    return (size_t)(next_u64(s) % (uint64_t)n);
}

/* Median of a resample of x (n values) into tmp (n doubles). */
static double resampled_median(const double *x, size_t n, double *tmp, uint64_t *s)
{
    for (size_t i = 0; i < n; i++) {
        tmp[i] = x[draw(s, n)];
    }
    return sp_stats_median(tmp, n, tmp);
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;

    return a < b ? -1 : (a > b ? 1 : 0);
}

static int valid_samples(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] > 0.0)) {
            return 0;
        }
    }
    return 1;
}

sp_status_t sp_ab_ratio(const double *a, size_t na, const double *b, size_t nb, int iters,
                        double conf, uint64_t seed, sp_ab_ratio_t *out_p)
{
    double *ratios, *ta, *tb;
    size_t below = 0, above = 0;
    uint64_t s = seed ? seed : 0x9e3779b97f4a7c15ull;
    sp_ab_ratio_t r;

    if (a == NULL || b == NULL || out_p == NULL || na < 2 || nb < 2 || iters < 100 ||
        !(conf > 0.0 && conf < 1.0) || !valid_samples(a, na) || !valid_samples(b, nb)) {
        return SP_ERR_INVALID;
    }
    ratios = malloc((size_t)iters * sizeof(*ratios));
    ta = malloc(na * sizeof(*ta));
    tb = malloc(nb * sizeof(*tb));
    if (ratios == NULL || ta == NULL || tb == NULL) {
        free(ratios);
        free(ta);
        free(tb);
        return SP_ERR_NOMEM;
    }
    memcpy(ta, a, na * sizeof(*ta));
    memcpy(tb, b, nb * sizeof(*tb));
    r.ratio = sp_stats_median(tb, nb, tb) / sp_stats_median(ta, na, ta);
    for (int i = 0; i < iters; i++) {
        double ma = resampled_median(a, na, ta, &s);
        double mb = resampled_median(b, nb, tb, &s);
        ratios[i] = mb / ma;
        below += ratios[i] < 1.0;
        above += ratios[i] > 1.0;
    }
    qsort(ratios, (size_t)iters, sizeof(*ratios), cmp_double);
    {
        double tail = (1.0 - conf) / 2.0;
        size_t lo = (size_t)floor(tail * (double)(iters - 1));
        size_t hi = (size_t)ceil((1.0 - tail) * (double)(iters - 1));
        r.lo = ratios[lo];
        r.hi = ratios[hi];
    }
    {
        /* ties at exactly 1 count for neither side, so p = 1 when nothing moved */
        size_t side = below < above ? below : above;
        size_t ties = (size_t)iters - below - above;
        double p = 2.0 * ((double)side + 0.5 * (double)ties) / (double)iters;
        double floor_p = 1.0 / ((double)iters + 1.0);
        r.p = p > 1.0 ? 1.0 : (p < floor_p ? floor_p : p);
    }
    free(ratios);
    free(ta);
    free(tb);
    *out_p = r;
    return SP_OK;
}

typedef struct {
    double p;
    size_t i;
} indexed_t;

static int cmp_indexed(const void *pa, const void *pb)
{
    const indexed_t *a = pa, *b = pb;

    if (a->p != b->p) {
        return a->p < b->p ? -1 : 1;
    }
    return a->i < b->i ? -1 : (a->i > b->i ? 1 : 0);
}

sp_status_t sp_ab_bh_adjust(const double *p, size_t n, double *q)
{
    indexed_t *x;
    double running = 1.0;

    if (n == 0) {
        return SP_OK;
    }
    if (p == NULL || q == NULL) {
        return SP_ERR_INVALID;
    }
    for (size_t i = 0; i < n; i++) {
        if (!(p[i] >= 0.0 && p[i] <= 1.0)) {
            return SP_ERR_INVALID;
        }
    }
    x = malloc(n * sizeof(*x));
    if (x == NULL) {
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        x[i].p = p[i];
        x[i].i = i;
    }
    qsort(x, n, sizeof(*x), cmp_indexed);
    /* from the largest p down: q_(k) = min(q_(k+1), p_(k) n / k) */
    for (size_t k = n; k-- > 0;) {
        double v = x[k].p * (double)n / (double)(k + 1);
        running = v < running ? v : running;
        q[x[k].i] = running;
    }
    free(x);
    return SP_OK;
}
