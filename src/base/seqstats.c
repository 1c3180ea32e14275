/* Dependence-aware statistics of a timing sequence. Successive samples of a sweep point are
 * correlated (lag-1 0.2-0.9 is common) and drift, so an i.i.d. interval is far too narrow; here
 * the variance comes from contiguous batches long enough to be nearly independent. */
#include "seqstats.h"

#include <math.h>
#include <string.h>

/* C11 has no M_PI */
#define SEQ_PI 3.14159265358979323846

sp_seq_params_t sp_seq_params_default(void)
{
    sp_seq_params_t p = {.conf = 0.95, .drift_alpha = 0.05, .drift_min_rel = 0.0};

    return p;
}

/* Upper bound on the number of batches sp_seq_batch_len can give for n samples. */
static size_t max_batches(size_t n)
{
    return (size_t)sqrt((double)n) + 1 + SP_SEQ_MIN_BATCHES;
}

size_t sp_seq_scratch_len(size_t n)
{
    return 2 * n + 3 * max_batches(n) + SP_SEQ_TREND_BATCHES;
}

static void swap_d(double *a, ptrdiff_t i, ptrdiff_t j)
{
    double t = a[i];

    a[i] = a[j];
    a[j] = t;
}

/* Quickselect: the k-th smallest (0-based) of a[0..n) ends at a[k], smaller values before it and
 * larger after, so later selections can work on either side. Median-of-three pivots. */
static double select_kth(double *a, size_t n, size_t k)
{
    ptrdiff_t lo = 0;
    ptrdiff_t hi = (ptrdiff_t)n - 1;
    ptrdiff_t kk = (ptrdiff_t)k;

    while (hi > lo) {
        ptrdiff_t mid = lo + (hi - lo) / 2;
        ptrdiff_t i = lo;
        ptrdiff_t j = hi;
        double pivot;

        if (a[mid] < a[lo]) {
            swap_d(a, mid, lo);
        }
        if (a[hi] < a[lo]) {
            swap_d(a, hi, lo);
        }
        if (a[hi] < a[mid]) {
            swap_d(a, hi, mid);
        }
        pivot = a[mid];
        while (i <= j) {
            while (a[i] < pivot) {
                i++;
            }
            while (a[j] > pivot) {
                j--;
            }
            if (i <= j) {
                swap_d(a, i, j);
                i++;
                j--;
            }
        }
        /* now a[lo..j] <= pivot <= a[i..hi], and anything strictly between equals the pivot */
        if (kk <= j) {
            hi = j;
        } else if (kk >= i) {
            lo = i;
        } else {
            break;
        }
    }
    return a[k];
}

/* Median of a[0..n), n >= 1, reordering a (select_kth's partition holds afterwards). */
static double median_inplace(double *a, size_t n)
{
    double hi = select_kth(a, n, n / 2);
    double lo = hi;

    if (n % 2 == 0) {
        /* the lower middle is the largest value left of n/2 */
        lo = a[0];
        for (size_t i = 1; i < n / 2; i++) {
            lo = a[i] > lo ? a[i] : lo;
        }
    }
    return 0.5 * (lo + hi);
}

double sp_seq_autocorr(const double *x, size_t n, size_t k)
{
    double m = 0.0;
    double num = 0.0;
    double den = 0.0;

    if (n <= k) {
        return 0.0;
    }
    for (size_t t = 0; t < n; t++) {
        m += x[t];
    }
    m /= (double)n;
    for (size_t t = 0; t < n; t++) {
        den += (x[t] - m) * (x[t] - m);
        if (t + k < n) {
            num += (x[t] - m) * (x[t + k] - m);
        }
    }
    return den > 0.0 ? num / den : 0.0;
}

static double below(double v, double c)
{
    return v < c ? 1.0 : (v == c ? 0.5 : 0.0);
}

double sp_seq_lag1_sign(const double *x, size_t n, double c)
{
    double m = 0.0;
    double num = 0.0;
    double den = 0.0;

    if (n < 2) {
        return 0.0;
    }
    for (size_t t = 0; t < n; t++) {
        m += below(x[t], c);
    }
    m /= (double)n;
    for (size_t t = 0; t < n; t++) {
        double d = below(x[t], c) - m;

        den += d * d;
        if (t + 1 < n) {
            num += d * (below(x[t + 1], c) - m);
        }
    }
    /* for a Gaussian pair with correlation r, the indicators correlate as (2/pi) asin r */
    return den > 0.0 ? sin(SEQ_PI / 2.0 * (num / den)) : 0.0;
}

size_t sp_seq_batch_len(size_t n, double r, int *enough_p)
{
    double rr = r > 0.0 ? (r < 0.99 ? r : 0.99) : 0.0;
    double tau = (1.0 + rr) / (1.0 - rr);
    size_t m = (size_t)ceil(sqrt((double)n));
    size_t m_dep = (size_t)ceil(SP_SEQ_BATCH_TAUS * tau - 1e-9); /* 2 * 19.000..04 is 38 */

    m = m > m_dep ? m : m_dep;
    *enough_p = n / m >= SP_SEQ_MIN_BATCHES;
    if (!*enough_p) {
        m = n / SP_SEQ_MIN_BATCHES;
        m = m > 0 ? m : 1;
    }
    return m;
}

void sp_seq_mann_kendall(const double *y, size_t n, double *s_p, double *var_p, double *p_p)
{
    double s = 0.0;
    double var = (double)n * ((double)n - 1.0) * (2.0 * (double)n + 5.0);

    for (size_t i = 0; i < n; i++) {
        size_t ties = 1;
        int first = 1;

        for (size_t j = 0; j < n; j++) {
            if (j > i) {
                s += (y[j] > y[i]) - (y[j] < y[i]);
            }
            if (j != i && y[j] == y[i]) {
                ties++;
                first = first && j > i;
            }
        }
        if (first && ties > 1) { /* each group of ties counted once, at its first member */
            var -= (double)ties * ((double)ties - 1.0) * (2.0 * (double)ties + 5.0);
        }
    }
    var /= 18.0;
    *s_p = s;
    *var_p = var;
    if (var <= 0.0) {
        *p_p = 1.0;
        return;
    }
    /* continuity correction: S moves in steps of 2 */
    *p_p = erfc((fabs(s) - 1.0 > 0.0 ? fabs(s) - 1.0 : 0.0) / sqrt(2.0 * var));
}

double sp_seq_norm_quantile(double q)
{
    double x = 0.0;

    if (!(q > 0.0 && q < 1.0)) {
        return q == 0.0 ? -INFINITY : (q == 1.0 ? INFINITY : NAN);
    }
    for (int it = 0; it < 100; it++) {
        double cdf = 0.5 * erfc(-x / sqrt(2.0));
        double pdf = exp(-0.5 * x * x) / sqrt(2.0 * SEQ_PI);
        double step = (cdf - q) / pdf;

        /* Newton from 0 is monotone for this convex/concave CDF; the clamp guards the far tail */
        step = step > 1.0 ? 1.0 : (step < -1.0 ? -1.0 : step);
        x -= step;
        if (fabs(step) < 1e-14) {
            break;
        }
    }
    return x;
}

/* P(|T| <= t) for Student's t with integer df nu >= 1, by the finite series in theta =
 * atan(t / sqrt(nu)) (Abramowitz and Stegun 26.7.3-4). */
static double t_central(double t, unsigned nu)
{
    double th = atan(fabs(t) / sqrt((double)nu));
    double c2 = cos(th) * cos(th);
    double term = 1.0;
    double sum = 1.0;

    if (nu % 2 == 0) {
        for (unsigned k = 2; k + 2 <= nu; k += 2) {
            term *= c2 * (double)(k - 1) / (double)k;
            sum += term;
        }
        return sin(th) * sum;
    }
    if (nu == 1) {
        return 2.0 / SEQ_PI * th;
    }
    for (unsigned k = 3; k + 2 <= nu; k += 2) {
        term *= c2 * (double)(k - 1) / (double)k;
        sum += term;
    }
    return 2.0 / SEQ_PI * (th + sin(th) * cos(th) * sum);
}

double sp_seq_t_quantile(double q, double df)
{
    double z = sp_seq_norm_quantile(q);
    double z2 = z * z;
    double g[4];
    double t;
    unsigned nu = (unsigned)df;
    double lc;

    /* Cornish-Fisher expansion in powers of 1/df (Abramowitz and Stegun 26.7.5) as the start */
    g[0] = z * (z2 + 1.0) / 4.0;
    g[1] = z * ((5.0 * z2 + 16.0) * z2 + 3.0) / 96.0;
    g[2] = z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / 384.0;
    g[3] = z * ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) / 92160.0;
    t = z + g[0] / df + g[1] / (df * df) + g[2] / (df * df * df) + g[3] / (df * df * df * df);
    if (nu == 1) {
        return tan(SEQ_PI * (q - 0.5));
    }
    if ((double)nu != df || nu > 1000 || !(q > 0.0 && q < 1.0)) {
        return t;
    }
    /* Newton on the exact CDF; the expansion is already close, so a few steps suffice */
    lc = lgamma(0.5 * (df + 1.0)) - lgamma(0.5 * df) - 0.5 * log(df * SEQ_PI);
    for (int it = 0; it < 20; it++) {
        double cdf = 0.5 + (t >= 0.0 ? 0.5 : -0.5) * t_central(t, nu);
        double pdf = exp(lc - 0.5 * (df + 1.0) * log1p(t * t / df));
        double step = (cdf - q) / pdf;

        t -= step;
        if (fabs(step) < 1e-13 * (1.0 + fabs(t))) {
            break;
        }
    }
    return t;
}

double sp_seq_sign_tau(double r)
{
    double rr = r > 0.0 ? (r < 0.99 ? r : 0.99) : 0.0;
    double sum = 0.0;
    double rk = rr;

    /* exact terms while asin is far from linear, then the geometric tail of asin(y) ~ y */
    while (rk > 0.05) {
        sum += asin(rk);
        rk *= rr;
    }
    sum += rk / (1.0 - rr);
    return 1.0 + 2.0 * (2.0 / SEQ_PI) * sum;
}

/* Per-batch statistics: bm[k] the batch median, bi[k] the fraction below the overall median,
 * bx[k] the batch mean. Batch k spans [k n / b, (k+1) n / b). copy holds ceil(n / b) doubles. */
static void batch_stats(const double *x, size_t n, size_t b, double med, double *copy, double *bm,
                        double *bi, double *bx)
{
    for (size_t k = 0; k < b; k++) {
        size_t lo = k * n / b;
        size_t hi = (k + 1) * n / b;
        double ind = 0.0;
        double sum = 0.0;

        for (size_t t = lo; t < hi; t++) {
            ind += below(x[t], med);
            sum += x[t];
        }
        memcpy(copy, x + lo, (hi - lo) * sizeof(*copy));
        bm[k] = median_inplace(copy, hi - lo);
        bi[k] = ind / (double)(hi - lo);
        bx[k] = sum / (double)(hi - lo);
    }
}

/* Long-run variance per sample from batch averages v[k] of unequal lengths: the weighted spread
 * sum len_k (v_k - vbar)^2 / (b - 1), vbar being the overall average. */
static double batch_variance(const double *v, size_t n, size_t b, double vbar)
{
    double ss = 0.0;

    for (size_t k = 0; k < b; k++) {
        double len = (double)((k + 1) * n / b - k * n / b);

        ss += len * (v[k] - vbar) * (v[k] - vbar);
    }
    return b > 1 ? ss / (double)(b - 1) : INFINITY;
}

/* Least-squares slope of the batch medians against the batch centers, in value per sample. */
static double batch_slope(const double *bm, size_t n, size_t b)
{
    double sx = 0.0;
    double sy = 0.0;
    double sxx = 0.0;
    double sxy = 0.0;

    for (size_t k = 0; k < b; k++) {
        double c = 0.5 * (double)(k * n / b + (k + 1) * n / b);

        sx += c;
        sy += bm[k];
        sxx += c * c;
        sxy += c * bm[k];
    }
    sxx -= sx * sx / (double)b;
    sxy -= sx * sy / (double)b;
    return sxx > 0.0 ? sxy / sxx : 0.0;
}

/* Median interval by ranks: the sign test inverted with per-sample variance v and quantile tq,
 * ranks (n+1)/2 -+ tq sqrt(n v). sorted is the full copy after the median's selection. */
static void median_ci(double *sorted, size_t n, double v, double tq, sp_seqstats_t *s)
{
    double h = tq * sqrt((double)n * v);
    double lf = floor(0.5 * (double)(n + 1) - h);
    size_t l;
    size_t u;

    s->ci_valid = lf >= 1.0;
    l = s->ci_valid ? (size_t)lf : 1;
    u = n + 1 - l;
    s->med_lo = select_kth(sorted, n, l - 1);
    s->med_hi = select_kth(sorted, n, u - 1);
}

/* Trend test on finer batches than the intervals use: a trend shows over the whole series while
 * the intervals need few long batches. Batches are at least SP_SEQ_BATCH_TAUS tau long (nearly
 * independent, as Mann-Kendall assumes) and at most SP_SEQ_TREND_BATCHES in number. */
static void trend_test(const double *x, size_t n, const sp_seq_params_t *p, double *copy,
                       double *tb, sp_seqstats_t *s)
{
    size_t m = (size_t)ceil(SP_SEQ_BATCH_TAUS * s->tau);
    size_t b;

    m = m > 1 ? m : 1;
    b = n / m;
    b = b < SP_SEQ_TREND_BATCHES ? b : SP_SEQ_TREND_BATCHES;
    if (b < 3) {
        s->trend_p = 1.0;
        return;
    }
    for (size_t k = 0; k < b; k++) {
        size_t lo = k * n / b;
        size_t hi = (k + 1) * n / b;

        memcpy(copy, x + lo, (hi - lo) * sizeof(*copy));
        tb[k] = median_inplace(copy, hi - lo);
    }
    sp_seq_mann_kendall(tb, b, &s->mk_s, &s->mk_var, &s->trend_p);
    s->trend_rel = s->median != 0.0 ? batch_slope(tb, n, b) * (double)n / s->median : 0.0;
    s->drift = s->trend_p < p->drift_alpha && fabs(s->trend_rel) >= p->drift_min_rel;
}

void sp_seq_analyze(const double *x, size_t n, const sp_seq_params_t *p, double *scratch,
                    sp_seqstats_t *out_p)
{
    sp_seqstats_t s;
    double *sorted = scratch;
    double *bm = scratch + 2 * n;
    double *bi = bm + max_batches(n);
    double *bx = bi + max_batches(n);
    double sum = 0.0;
    double ss = 0.0;
    double ibar = 0.0;
    double v_ind;
    double v_mean;
    double tq;
    double r;

    memset(&s, 0, sizeof(s));
    s.n = n;
    if (n == 0) {
        s.median = s.med_lo = s.med_hi = s.mean = s.mean_lo = s.mean_hi = NAN;
        s.lag1 = s.trend_rel = 0.0;
        s.trend_p = 1.0;
        *out_p = s;
        return;
    }
    memcpy(sorted, x, n * sizeof(*sorted));
    s.median = median_inplace(sorted, n);
    for (size_t t = 0; t < n; t++) {
        sum += x[t];
        ibar += below(x[t], s.median);
    }
    s.mean = sum / (double)n;
    ibar /= (double)n;
    for (size_t t = 0; t < n; t++) {
        ss += (x[t] - s.mean) * (x[t] - s.mean);
    }
    s.lag1 = sp_seq_lag1_sign(x, n, s.median);
    /* lag-1 estimates run low by about (1 + 4r)/n (AR(1), mean estimated); sizing and the
     * variance floor use the corrected value, as a low r is what lets a point stop too early */
    r = fmin(s.lag1 + (1.0 + 4.0 * fmax(s.lag1, 0.0)) / (double)n, 0.99);
    s.batch_len = sp_seq_batch_len(n, r, &s.enough_batches);
    s.batches = n / s.batch_len;
    s.batch_len = n / s.batches; /* the shortest batch once the remainder is spread */
    s.tau = r > 0.0 ? (1.0 + r) / (1.0 - r) : 1.0;
    batch_stats(x, n, s.batches, s.median, scratch + n, bm, bi, bx);

    /* variances per sample, never below what the lag-1 autocorrelation implies (the i.i.d.
     * values when it is 0): a batch spread that happens to come out small must not let a
     * sequential rule stop early on a lucky interval */
    v_ind = fmax(batch_variance(bi, n, s.batches, ibar), 0.25 * sp_seq_sign_tau(r));
    s.n_eff = (double)n * 0.25 / v_ind;
    v_mean =
        fmax(batch_variance(bx, n, s.batches, s.mean), n > 1 ? s.tau * ss / (double)(n - 1) : 0.0);
    tq = s.batches > 1 ? sp_seq_t_quantile(0.5 + 0.5 * p->conf, (double)(s.batches - 1)) : INFINITY;
    median_ci(sorted, n, v_ind, tq, &s);
    s.mean_lo = s.mean - tq * sqrt(v_mean / (double)n);
    s.mean_hi = s.mean + tq * sqrt(v_mean / (double)n);

    trend_test(x, n, p, scratch + n, bx + max_batches(n), &s);
    *out_p = s;
}

double sp_seq_rel_halfwidth(const sp_seqstats_t *s)
{
    double lo;
    double hi;

    if (!s->ci_valid || !(s->median > 0.0)) {
        return INFINITY;
    }
    lo = s->median - s->med_lo;
    hi = s->med_hi - s->median;
    return (lo > hi ? lo : hi) / s->median;
}

int sp_seq_converged(const sp_seqstats_t *s, size_t min_samples, double epsilon)
{
    /* stopping is a sequence of tests: a trend that hides at one check must not let the point
     * stop there, so the rule asks for less evidence of a trend than the drift flag does */
    int trend = s->trend_p < SP_SEQ_STOP_ALPHA && fabs(s->trend_rel) >= epsilon;

    return s->n >= min_samples && s->enough_batches && !s->drift && !trend &&
           sp_seq_rel_halfwidth(s) <= epsilon;
}
