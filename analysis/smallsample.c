/* Welch interval, split t and permutation floor (see smallsample.h). */
#include "smallsample.h"

#include <math.h>

#include "abstats.h"

static void mean_var(const double *x, size_t n, double *mean_p, double *var_p)
{
    double s = 0.0, ss = 0.0;

    for (size_t i = 0; i < n; i++) {
        s += x[i];
    }
    s /= (double)n;
    for (size_t i = 0; i < n; i++) {
        ss += (x[i] - s) * (x[i] - s);
    }
    *mean_p = s;
    *var_p = n > 1 ? ss / (double)(n - 1) : 0.0;
}

static int finite_all(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) {
            return 0;
        }
    }
    return 1;
}

sp_status_t sp_ss_welch(const double *a, size_t na, const double *b, size_t nb, double conf,
                        sp_ss_welch_t *out_p)
{
    double ma, va, mb, vb, sa, sb, se2, half;
    sp_ss_welch_t r;

    if (a == NULL || b == NULL || out_p == NULL || na < 2 || nb < 2 || !(conf > 0.0) ||
        !(conf < 1.0) || !finite_all(a, na) || !finite_all(b, nb)) {
        return SP_ERR_INVALID;
    }
    mean_var(a, na, &ma, &va);
    mean_var(b, nb, &mb, &vb);
    sa = va / (double)na;
    sb = vb / (double)nb;
    se2 = sa + sb;
    r.diff = mb - ma;
    if (!(se2 > 0.0)) {
        r.lo = r.hi = r.diff;
        r.df = NAN;
        *out_p = r;
        return SP_OK;
    }
    r.df = se2 * se2 / (sa * sa / (double)(na - 1) + sb * sb / (double)(nb - 1));
    half = sp_ab_t_quantile(conf, r.df) * sqrt(se2);
    r.lo = r.diff - half;
    r.hi = r.diff + half;
    *out_p = r;
    return SP_OK;
}

double sp_ss_split_t(const double *x, size_t m, size_t k)
{
    double ml, vl, mr, vr, pooled;

    if (x == NULL || m < 3 || k < 1 || k >= m) {
        return NAN;
    }
    mean_var(x, k, &ml, &vl);
    mean_var(x + k, m - k, &mr, &vr);
    pooled = ((double)(k - 1) * vl + (double)(m - k - 1) * vr) / (double)(m - 2);
    if (!(pooled > 0.0)) {
        return mr == ml ? 0.0 : (mr > ml ? INFINITY : -INFINITY);
    }
    return (mr - ml) / sqrt(pooled * (1.0 / (double)k + 1.0 / (double)(m - k)));
}

double sp_ss_perm_floor(size_t nblocks)
{
    double c = 1.0;
    size_t k = nblocks / 2;

    if (nblocks < 2) {
        return 1.0;
    }
    for (size_t i = 1; i <= k; i++) {
        c = c * (double)(nblocks - k + i) / (double)i; /* C(B, k), exact in doubles here */
    }
    return fmin(1.0, 2.0 / c);
}
