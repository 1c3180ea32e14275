/* Which rank arrives late at a point's samples, by arrival time on one clock, and whether that
 * lateness is real: the rank last to arrive most often, its mean lateness against the median
 * arrival, and a sign test that it is later than the median by more than the clock error bound.
 * docs/METHODOLOGY.md ("The late rank") states the rule. */
#ifndef SP_LATENESS_H
#define SP_LATENESS_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* The significance level of the late-rank test (after the Bonferroni factor nranks). */
#define SP_LATE_ALPHA 0.05

/* A lateness counts only beyond this fraction of the sample's batch duration too: less moves the
 * sample by less than that, and ranks sharing cores are that late without any fault (measured:
 * 10-30 us after the barrier, 4 ranks on 2 loaded cores). docs/METHODOLOGY.md. */
#define SP_LATE_MIN_FRAC 0.05

/* Per-rank counts over the samples of one point. All arrays have nranks entries; they are
 * allocated by sp_late_init and freed by sp_late_cleanup (the struct is the caller's). */
typedef struct {
    int nranks;
    int64_t err_ns;   /* clock error bound: a lateness of at most this is not counted */
    uint64_t samples; /* samples added since the last reset */
    uint64_t *last;   /* samples in which the rank arrived strictly last */
    uint64_t *beyond; /* samples in which it was later than the median by more than err_ns
                       * and SP_LATE_MIN_FRAC of the batch */
    double *late_ns;  /* sum over samples of (its arrival - the median arrival) */
    int64_t *scratch;
} sp_late_acc_t;

/* The verdict on one point. */
typedef struct {
    int rank;        /* the candidate: last most often (ties: the larger summed lateness, then
                      * the lower rank); -1 with no sample or fewer than 2 ranks */
    int significant; /* 1 when p < SP_LATE_ALPHA and margin_us is beyond err_ns: the
                      * candidate is named the late rank */
    uint64_t samples;
    uint64_t last;    /* samples in which the candidate was last */
    uint64_t beyond;  /* samples in which it was later than the median beyond the threshold */
    double margin_us; /* its mean lateness against the median arrival, microseconds */
    double p;         /* min(1, nranks * P(B >= beyond)), B ~ Binomial(samples, 1/2); 1 when
                       * rank is -1 */
} sp_late_t;

/* Allocate the counts for nranks (>= 1) ranks and reset them with err_ns (>= 0).
 * SP_ERR_INVALID, SP_ERR_NOMEM; on failure nothing is left allocated. */
sp_status_t sp_late_init(sp_late_acc_t *acc, int nranks, int64_t err_ns);

/* Free the counts; a zeroed or cleaned-up acc is fine. */
void sp_late_cleanup(sp_late_acc_t *acc);

/* Zero the counts for a new point. */
void sp_late_reset(sp_late_acc_t *acc);

/* Add one sample: arrival_ns[r] is rank r's arrival on a common clock (nranks entries); batch_ns
 * the sample's batch duration (the longest rank's), so a lateness counts beyond
 * max(err_ns, SP_LATE_MIN_FRAC * batch_ns). No allocation; O(nranks) expected. */
void sp_late_add(sp_late_acc_t *acc, const int64_t *arrival_ns, int64_t batch_ns);

/* The verdict from the samples added so far. */
void sp_late_result(const sp_late_acc_t *acc, sp_late_t *out_p);

/* The two middle values of v[0..n) (n >= 1; equal for an odd n), reordering v: the median is
 * their mean. Expected O(n). */
void sp_middle_pair_i64(int64_t *v, size_t n, int64_t *lo_p, int64_t *hi_p);

/* P(B >= k) for B ~ Binomial(n, 1/2): the one-sided sign test's p-value. */
double sp_late_sign_p(uint64_t n, uint64_t k);

#endif
