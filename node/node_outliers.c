/* The outlier rule of `scaleprobe node`: a unit's median CI against the cohort median. */
#include "node_outliers.h"

#include <math.h>

#include "stats.h"

void sp_node_estimate(const double *samples, size_t n, double *scratch, sp_node_est_t *est_p)
{
    sp_summary_t s;

    for (size_t i = 0; i < n; i++) {
        scratch[i] = samples[i];
    }
    sp_stats_summarize(scratch, n, scratch, &s);
    est_p->median = s.median;
    est_p->ci_lo = s.ci_lo;
    est_p->ci_hi = s.ci_hi;
}

sp_status_t sp_node_outliers(const sp_node_est_t *est, size_t n, double threshold,
                             double *scratch, sp_node_verdict_t *out, double *cohort_p,
                             size_t *nflagged_p)
{
    double cohort;
    size_t nflagged = 0;

    if (!(threshold > 0.0 && threshold < 1.0)) {
        return SP_ERR_INVALID;
    }
    for (size_t i = 0; i < n; i++) {
        scratch[i] = est[i].median;
    }
    cohort = sp_stats_median(scratch, n, scratch);
    for (size_t i = 0; i < n; i++) {
        sp_node_verdict_t *v = &out[i];
        if (!(cohort > 0.0)) {
            v->ratio = v->ratio_lo = v->ratio_hi = NAN;
            v->flagged = 0;
            continue;
        }
        v->ratio = est[i].median / cohort;
        v->ratio_lo = est[i].ci_lo / cohort;
        v->ratio_hi = est[i].ci_hi / cohort;
        /* one unit is its own cohort: it cannot be below itself */
        v->flagged = n >= 2 && v->ratio_hi < 1.0 - threshold;
        nflagged += (size_t)v->flagged;
    }
    *cohort_p = cohort;
    *nflagged_p = nflagged;
    return SP_OK;
}
