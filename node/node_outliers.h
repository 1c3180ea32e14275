/* Outliers of a cohort (ranks or nodes): which units are significantly below the cohort median.
 * Pure functions, no MPI; docs/METHODOLOGY.md ("Node baselines") states the rule. */
#ifndef SP_NODE_OUTLIERS_H
#define SP_NODE_OUTLIERS_H

#include <stddef.h>

#include "status.h"

/* One unit's estimate: median rate and the 95% CI of that median. */
typedef struct {
    double median;
    double ci_lo;
    double ci_hi;
} sp_node_est_t;

/* One unit against the cohort: effect size (ratio to the cohort median) with its CI. */
typedef struct {
    double ratio;    /* median / cohort median */
    double ratio_lo; /* ci_lo / cohort median */
    double ratio_hi; /* ci_hi / cohort median */
    int flagged;     /* 1 when ratio_hi < 1 - threshold */
} sp_node_verdict_t;

/* The estimate of one unit from its samples (higher is better): median and the distribution-free
 * 95% CI of the median (the sweep's, sp_stats_summarize; min and max when n < 6). scratch holds n
 * doubles. n == 0 gives NaNs. */
void sp_node_estimate(const double *samples, size_t n, double *scratch, sp_node_est_t *est_p);

/*
 * Compare every unit with the cohort: the cohort median is the median of the n units' medians;
 * a unit is flagged when its whole CI lies below (1 - threshold) times the cohort median. With
 * fewer than 2 units, or a cohort median that is not positive, nothing is flagged.
 * scratch holds n doubles; out has n entries. Returns SP_ERR_INVALID for threshold outside
 * (0, 1); sets *cohort_p and *nflagged_p on success.
 */
sp_status_t sp_node_outliers(const sp_node_est_t *est, size_t n, double threshold,
                             double *scratch, sp_node_verdict_t *out, double *cohort_p,
                             size_t *nflagged_p);

#endif
