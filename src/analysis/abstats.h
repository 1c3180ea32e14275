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

#endif
