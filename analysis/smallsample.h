/* Small-sample tests for regress (issue 14): Welch's t interval for a difference of means, the
 * pooled two-sample t of one split of a series, and the smallest p-value an exact permutation
 * test over B exchangeable blocks can reach. Pure functions, no allocation. */
#ifndef SP_SMALLSAMPLE_H
#define SP_SMALLSAMPLE_H

#include <stddef.h>

#include "status.h"

typedef struct {
    double diff; /* mean(b) - mean(a) */
    double lo;   /* Welch t interval of diff at the requested confidence */
    double hi;
    double df; /* Welch-Satterthwaite degrees of freedom (NaN when neither side varies) */
} sp_ss_welch_t;

/* Welch's t interval for mean(b) - mean(a): se^2 = va/na + vb/nb with the sample variances,
 * degrees of freedom by Welch-Satterthwaite, quantile from Student t (abstats.h). When neither
 * side varies the interval is the point. SP_ERR_INVALID for na or nb < 2, conf outside (0, 1),
 * NULL pointers or a non-finite value. *out_p is set only on success. */
sp_status_t sp_ss_welch(const double *a, size_t na, const double *b, size_t nb, double conf,
                        sp_ss_welch_t *out_p);

/* The pooled-variance two-sample t of x[0..k) against x[k..m) (mean of the right minus the
 * left over its standard error; m - 2 degrees of freedom). Under independent normal values of
 * one mean and variance it follows Student t exactly for any fixed k. +-INFINITY when neither
 * part varies and the means differ, 0 when they do not. Needs 1 <= k < m and m >= 3; NaN
 * otherwise. */
double sp_ss_split_t(const double *x, size_t m, size_t k);

/* 2 / C(B, floor(B/2)), at most 1: the smallest p-value an exact permutation test can give a
 * split of B exchangeable values (or blocks), reached when the split puts the floor(B/2)
 * smallest on one side, because every reordering within each side and the mirror image tie
 * with it. B < 2: 1. */
double sp_ss_perm_floor(size_t nblocks);

#endif
