/* Sample statistics of a sweep point: median with its order-statistic confidence interval, the
 * stopping rule, and the usual summary numbers. Pure functions, no MPI. */
#ifndef SP_STATS_H
#define SP_STATS_H

#include <stddef.h>

#include "status.h"

typedef struct {
    size_t n;
    double median;
    double mean;
    double stddev; /* sample standard deviation (n-1); 0 when n < 2 */
    double min;
    double max;
    double p99;    /* nearest-rank: x_(ceil(0.99 n)) */
    double ci_lo;  /* 95% CI of the median: x_(l) ... */
    double ci_hi;  /* ... x_(n-l+1); min and max when n is too small for 95% */
    int ci_valid;  /* 1 when n is large enough for the requested confidence */
} sp_summary_t;

/*
 * Order-statistic indices (1-based) of a distribution-free confidence interval for the median of
 * n samples: the largest l with P(Binomial(n, 1/2) <= l-1) <= (1-conf)/2, and u = n-l+1. The
 * interval [x_(l), x_(u)] covers the median with probability >= conf.
 * Returns SP_ERR_INVALID when n is too small for any such l (n < 6 at 95%); l_p and u_p are then
 * set to 1 and n.
 */
sp_status_t sp_stats_median_ci_ranks(size_t n, double conf, size_t *l_p, size_t *u_p);

/* Achieved coverage of the interval [x_(l), x_(n-l+1)]: 1 - 2 P(B <= l-1). */
double sp_stats_median_ci_coverage(size_t n, size_t l);

/* Summary of samples[0..n) at 95%. scratch must hold n doubles (may alias samples, which is then
 * sorted). n == 0 gives a summary of NaNs. */
void sp_stats_summarize(const double *samples, size_t n, double *scratch, sp_summary_t *out_p);

/* Relative half-width of the median's CI: max(median-lo, hi-median) / median; +inf when the CI is
 * not valid or the median is not positive. */
double sp_stats_rel_halfwidth(const sp_summary_t *s);

/* Stopping rule: at least min_samples and a valid CI whose relative half-width is <= epsilon. */
int sp_stats_converged(const sp_summary_t *s, size_t min_samples, double epsilon);

/* Median of values[0..n), sorting a copy into scratch (n doubles). NaN when n == 0. */
double sp_stats_median(const double *values, size_t n, double *scratch);

#endif
