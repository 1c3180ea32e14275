/* Statistics of an A/B comparison (scaleprobe compare, issue 7): the ratio of two medians with a
 * bootstrap confidence interval, and Benjamini-Hochberg control of the false-discovery rate over
 * many compared points. Pure functions; deterministic for a given seed. */
#ifndef SP_ABSTATS_H
#define SP_ABSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct {
    double ratio; /* median(b) / median(a): > 1 means b takes longer */
    double lo;    /* percentile-bootstrap interval of the ratio at the requested confidence */
    double hi;
    double p;     /* two-sided bootstrap p-value of "ratio = 1": twice the smaller share of
                   * resampled ratios on either side of 1, at least 1 / (iters + 1) */
} sp_ab_ratio_t;

/* Resample a and b independently (with replacement, iters times), take the ratio of the
 * resampled medians, and read the interval at conf (e.g. 0.95) from its percentiles. Samples
 * must be positive. SP_ERR_INVALID for na or nb < 2, iters < 100, conf outside (0, 1), a sample
 * <= 0 or NaN, NULL pointers; SP_ERR_NOMEM. *out_p is set only on success. O(iters (na + nb)). */
sp_status_t sp_ab_ratio(const double *a, size_t na, const double *b, size_t nb, int iters,
                        double conf, uint64_t seed, sp_ab_ratio_t *out_p);

/* Benjamini-Hochberg adjusted p-values (q-values): q[i] = min over j with p_(j) >= p_i of
 * p_(j) * n / rank(j), capped at 1. Declaring every point with q <= alpha keeps the expected
 * share of false discoveries among the declared ones at most alpha (independent or positively
 * dependent tests). q may alias p. SP_ERR_INVALID for NULL with n > 0 or a p outside [0, 1];
 * SP_ERR_NOMEM. */
sp_status_t sp_ab_bh_adjust(const double *p, size_t n, double *q);

/* Comparison over runs: a and b hold one value per run (the run's median of a point), na and
 * nb runs. The ratio is exp(mean log b - mean log a), the ratio of geometric means; the interval
 * and two-sided p-value come from Student's t on the log values with the variance pooled over
 * both sides (na + nb - 2 degrees of freedom), so the spread between runs, which no single run
 * shows, is in the interval. Needs na + nb >= 3 (one side may have a single run: it takes the
 * other side's spread). When no value varies the interval is the point and p is 1 (equal) or 0.
 * SP_ERR_INVALID for too few runs, conf outside (0, 1), a value <= 0 or NaN, NULL pointers. */
sp_status_t sp_ab_runs_ratio(const double *a, size_t na, const double *b, size_t nb, double conf,
                             sp_ab_ratio_t *out_p);

/* Student t with df degrees of freedom: the two-sided tail probability P(|T| >= |t|), and the
 * t with that probability 1 - conf (e.g. 2.776 for conf 0.95, df 4). NaN for bad arguments. */
double sp_ab_t_two_sided_p(double t, double df);
double sp_ab_t_quantile(double conf, double df);

#endif
