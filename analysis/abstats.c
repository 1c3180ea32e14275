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

/* ---- Student t, for comparisons over runs ---- */

/* Continued fraction of the regularized incomplete beta function (modified Lentz), valid for
 * x < (a + 1) / (a + b + 2); the caller uses the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) above. */
static double beta_fraction(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;

    d = 1.0 / (fabs(d) < tiny ? tiny : d);
    h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)); /* even step */
        d = 1.0 + num * d;
        c = 1.0 + num / c;
        d = 1.0 / (fabs(d) < tiny ? tiny : d);
        c = fabs(c) < tiny ? tiny : c;
        h *= d * c;
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)); /* odd step */
        d = 1.0 + num * d;
        c = 1.0 + num / c;
        d = 1.0 / (fabs(d) < tiny ? tiny : d);
        c = fabs(c) < tiny ? tiny : c;
        h *= d * c;
        if (fabs(d * c - 1.0) < 1e-15) {
            break;
        }
    }
    return h;
}

static double incomplete_beta(double a, double b, double x)
{
    double front;

    if (x <= 0.0) {
        return 0.0;
    }
    if (x >= 1.0) {
        return 1.0;
    }
    front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1.0) / (a + b + 2.0)) {
        return front * beta_fraction(a, b, x) / a;
    }
    return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

double sp_ab_t_two_sided_p(double t, double df)
{
    if (!(df > 0.0) || isnan(t)) {
        return NAN;
    }
    if (isinf(t)) {
        return 0.0;
    }
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
}

double sp_ab_t_quantile(double conf, double df)
{
    double lo = 0.0, hi = 1.0, alpha = 1.0 - conf;

    if (!(df > 0.0) || !(conf > 0.0 && conf < 1.0)) {
        return NAN;
    }
    while (sp_ab_t_two_sided_p(hi, df) > alpha && hi < 1e12) {
        hi *= 2.0;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (sp_ab_t_two_sided_p(mid, df) > alpha) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return 0.5 * (lo + hi);
}

sp_status_t sp_ab_runs_ratio(const double *a, size_t na, const double *b, size_t nb, double conf,
                             sp_ab_ratio_t *out_p)
{
    double ma = 0.0, mb = 0.0, ss = 0.0, df, se, diff, q;
    sp_ab_ratio_t r;

    if (a == NULL || b == NULL || out_p == NULL || na < 1 || nb < 1 || na + nb < 3 ||
        !(conf > 0.0 && conf < 1.0) || !valid_samples(a, na) || !valid_samples(b, nb)) {
        return SP_ERR_INVALID;
    }
    for (size_t i = 0; i < na; i++) {
        ma += log(a[i]) / (double)na;
    }
    for (size_t i = 0; i < nb; i++) {
        mb += log(b[i]) / (double)nb;
    }
    for (size_t i = 0; i < na; i++) {
        ss += (log(a[i]) - ma) * (log(a[i]) - ma);
    }
    for (size_t i = 0; i < nb; i++) {
        ss += (log(b[i]) - mb) * (log(b[i]) - mb);
    }
    df = (double)(na + nb - 2);
    se = sqrt(ss / df * (1.0 / (double)na + 1.0 / (double)nb));
    diff = mb - ma;
    r.ratio = exp(diff);
    if (se > 0.0) {
        q = sp_ab_t_quantile(conf, df);
        r.lo = exp(diff - q * se);
        r.hi = exp(diff + q * se);
        r.p = sp_ab_t_two_sided_p(diff / se, df);
    } else {
        /* every run of both sides gave the same value: nothing varies */
        r.lo = r.hi = r.ratio;
        r.p = diff == 0.0 ? 1.0 : 0.0;
    }
    *out_p = r;
    return SP_OK;
}

double sp_ab_t_upper(double t, double df)
{
    double two = sp_ab_t_two_sided_p(t, df);

    if (isnan(two)) {
        return NAN;
    }
    return t >= 0.0 ? 0.5 * two : 1.0 - 0.5 * two;
}

/* The t exceeded with probability 1 - p (one-sided, p in (0.5, 1)). */
static double t_one_sided(double p, double df)
{
    return sp_ab_t_quantile(2.0 * p - 1.0, df);
}

double sp_ab_mde(double se_log, double df, double threshold, double alpha, double power)
{
    if (!(se_log >= 0.0) || !(df > 0.0) || !(threshold >= 0.0) || !(alpha > 0.0 && alpha < 0.5) ||
        !(power > 0.5 && power < 1.0)) {
        return NAN;
    }
    return expm1(log1p(threshold) +
                 (t_one_sided(1.0 - alpha, df) + t_one_sided(power, df)) * se_log);
}

int sp_ab_runs_needed(double sd_run_log, double threshold, double target, double alpha,
                      double power, int max_runs)
{
    if (!(sd_run_log >= 0.0) || !(target > threshold) || max_runs < 2 ||
        isnan(sp_ab_mde(0.0, 1.0, threshold, alpha, power))) {
        return -1;
    }
    for (int n = 2; n <= max_runs; n++) {
        if (sp_ab_mde(sd_run_log * sqrt(2.0 / n), 2.0 * n - 2.0, threshold, alpha, power) <=
            target) {
            return n;
        }
    }
    return max_runs + 1;
}

static void log_mean_var(const double *x, size_t n, double *mean_p, double *var_p)
{
    double m = 0.0, ss = 0.0;

    for (size_t i = 0; i < n; i++) {
        m += log(x[i]) / (double)n;
    }
    for (size_t i = 0; i < n; i++) {
        ss += (log(x[i]) - m) * (log(x[i]) - m);
    }
    *mean_p = m;
    *var_p = ss / (double)(n - 1);
}

sp_status_t sp_ab_min_effect(const double *a, size_t na, const double *b, size_t nb,
                             double threshold, double alpha, double power, double conf,
                             sp_ab_mintest_t *out_p)
{
    double ma, va, mb, vb, wa, wb, delta, d, ad;
    sp_ab_mintest_t t;

    if (a == NULL || b == NULL || out_p == NULL || na < 2 || nb < 2 || !(threshold >= 0.0) ||
        !(alpha > 0.0 && alpha < 0.5) || !(power > 0.5 && power < 1.0) ||
        !(conf > 0.0 && conf < 1.0) || !valid_samples(a, na) || !valid_samples(b, nb)) {
        return SP_ERR_INVALID;
    }
    log_mean_var(a, na, &ma, &va);
    log_mean_var(b, nb, &mb, &vb);
    wa = va / (double)na;
    wb = vb / (double)nb;
    delta = log1p(threshold);
    d = mb - ma;
    ad = fabs(d);
    t.ratio = exp(d);
    t.se_log = sqrt(wa + wb);
    if (t.se_log > 0.0) {
        double q;
        /* Welch-Satterthwaite; a side without spread contributes no degrees of freedom */
        t.df = (wa + wb) * (wa + wb) / (wa * wa / (double)(na - 1) + wb * wb / (double)(nb - 1));
        q = sp_ab_t_quantile(conf, t.df);
        t.lo = exp(d - q * t.se_log);
        t.hi = exp(d + q * t.se_log);
        /* the change statistic |d| at the boundary d = +delta (or -delta): both tails */
        t.p_change = sp_ab_t_upper((ad - delta) / t.se_log, t.df) +
                     sp_ab_t_upper((ad + delta) / t.se_log, t.df);
        t.p_change = t.p_change > 1.0 ? 1.0 : t.p_change;
        t.p_equiv = sp_ab_t_upper((delta - ad) / t.se_log, t.df);
        t.mde = sp_ab_mde(t.se_log, t.df, threshold, alpha, power);
    } else {
        t.df = (double)(na + nb - 2);
        t.lo = t.hi = t.ratio;
        t.p_change = ad > delta ? 0.0 : 1.0;
        t.p_equiv = ad < delta ? 0.0 : 1.0;
        t.mde = threshold;
    }
    *out_p = t;
    return SP_OK;
}

sp_status_t sp_ab_verdicts(const sp_ab_mintest_t *t, size_t n, double fdr, double *q_change,
                           double *q_equiv, sp_ab_verdict_t *v)
{
    double *qc, *qe;
    sp_status_t st = SP_OK;

    if (n == 0) {
        return SP_OK;
    }
    if (t == NULL || v == NULL || !(fdr > 0.0 && fdr < 1.0)) {
        return SP_ERR_INVALID;
    }
    qc = malloc(2 * n * sizeof(*qc));
    if (qc == NULL) {
        return SP_ERR_NOMEM;
    }
    qe = qc + n;
    for (size_t i = 0; i < n; i++) {
        qc[i] = t[i].p_change;
        qe[i] = t[i].p_equiv;
    }
    st = sp_ab_bh_adjust(qc, n, qc);
    if (st == SP_OK) {
        st = sp_ab_bh_adjust(qe, n, qe);
    }
    for (size_t i = 0; st == SP_OK && i < n; i++) {
        v[i] = qc[i] < fdr   ? (t[i].ratio > 1.0 ? SP_AB_SLOWER : SP_AB_FASTER)
               : qe[i] < fdr ? SP_AB_WITHIN
                             : SP_AB_INCONCLUSIVE;
        if (q_change != NULL) {
            q_change[i] = qc[i];
        }
        if (q_equiv != NULL) {
            q_equiv[i] = qe[i];
        }
    }
    free(qc);
    return st;
}

const char *sp_ab_verdict_name(sp_ab_verdict_t v)
{
    switch (v) {
    case SP_AB_SLOWER:
        return "slower";
    case SP_AB_FASTER:
        return "faster";
    case SP_AB_WITHIN:
        return "within threshold";
    case SP_AB_INCONCLUSIVE:
        break;
    }
    return "inconclusive";
}
