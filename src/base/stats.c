/* Distribution-free statistics for timing samples. Timings are skewed and heavy-tailed, so the
 * median and an order-statistic CI are used rather than mean +- t*s. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;

    return (x > y) - (x < y);
}

/* P(Binomial(n, 1/2) <= k), summed in log space so large n neither overflows nor underflows. */
static double binom_half_cdf(size_t n, size_t k)
{
    double lg_n1 = lgamma((double)n + 1.0);
    double log_half_n = (double)n * log(0.5);
    double sum = 0.0;

    for (size_t i = 0; i <= k && i <= n; i++) {
        double lp = lg_n1 - lgamma((double)i + 1.0) - lgamma((double)(n - i) + 1.0) + log_half_n;
        sum += exp(lp);
    }
    return sum;
}

double sp_stats_median_ci_coverage(size_t n, size_t l)
{
    if (l == 0 || 2 * l > n + 1) {
        return 0.0;
    }
    return 1.0 - 2.0 * binom_half_cdf(n, l - 1);
}

sp_status_t sp_stats_median_ci_ranks(size_t n, double conf, size_t *l_p, size_t *u_p)
{
    double tail = (1.0 - conf) / 2.0;
    size_t l = 0;
    double cdf = 0.0;
    double lg_n1 = lgamma((double)n + 1.0);
    double log_half_n = (double)n * log(0.5);

    /* grow l while P(B <= l-1) stays within the tail; the CDF is accumulated incrementally */
    for (size_t k = 0; 2 * (k + 1) <= n + 1; k++) {
        cdf += exp(lg_n1 - lgamma((double)k + 1.0) - lgamma((double)(n - k) + 1.0) + log_half_n);
        if (cdf > tail) {
            break;
        }
        l = k + 1;
    }
    if (l == 0) {
        *l_p = 1;
        *u_p = n;
        return SP_ERR_INVALID;
    }
    *l_p = l;
    *u_p = n - l + 1;
    return SP_OK;
}

double sp_stats_median(const double *values, size_t n, double *scratch)
{
    if (n == 0) {
        return NAN;
    }
    if (scratch != values) {
        memcpy(scratch, values, n * sizeof(*scratch));
    }
    qsort(scratch, n, sizeof(*scratch), cmp_double);
    return (n % 2) ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

void sp_stats_summarize(const double *samples, size_t n, double *scratch, sp_summary_t *out_p)
{
    sp_summary_t s;
    double sum = 0.0;
    double sq = 0.0;
    size_t l;
    size_t u;

    memset(&s, 0, sizeof(s));
    s.n = n;
    if (n == 0) {
        s.median = s.mean = s.min = s.max = s.p99 = s.ci_lo = s.ci_hi = NAN;
        *out_p = s;
        return;
    }
    s.median = sp_stats_median(samples, n, scratch);
    for (size_t i = 0; i < n; i++) {
        sum += scratch[i];
    }
    s.mean = sum / (double)n;
    for (size_t i = 0; i < n; i++) {
        sq += (scratch[i] - s.mean) * (scratch[i] - s.mean);
    }
    s.stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
    s.min = scratch[0];
    s.max = scratch[n - 1];
    s.p99 = scratch[(size_t)ceil(0.99 * (double)n) - 1];
    s.ci_valid = sp_stats_median_ci_ranks(n, 0.95, &l, &u) == SP_OK;
    s.ci_lo = scratch[l - 1];
    s.ci_hi = scratch[u - 1];
    *out_p = s;
}

double sp_stats_rel_halfwidth(const sp_summary_t *s)
{
    double lo;
    double hi;

    if (!s->ci_valid || !(s->median > 0.0)) {
        return INFINITY;
    }
    lo = s->median - s->ci_lo;
    hi = s->ci_hi - s->median;
    return (lo > hi ? lo : hi) / s->median;
}

int sp_stats_converged(const sp_summary_t *s, size_t min_samples, double epsilon)
{
    return s->n >= min_samples && sp_stats_rel_halfwidth(s) <= epsilon;
}
