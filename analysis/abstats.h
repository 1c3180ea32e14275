/* Statistics of an A/B comparison (scaleprobe compare): the ratio of two medians with a bootstrap
 * confidence interval (one run per side, descriptive), minimum-effect and equivalence tests over
 * repeated runs, and Benjamini-Hochberg control of the false-discovery rate over many compared
 * points. Pure functions; deterministic for a given seed. */
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
/* The upper tail P(T >= t) of Student t with df degrees of freedom; NaN for bad arguments. */
double sp_ab_t_upper(double t, double df);

/* ---- minimum-effect tests over runs (issue 14) ---- */

/* One point compared over repeated runs: a and b hold one value per run (its median). d is
 * mean log b - mean log a, its standard error from Welch (each side its own variance), the
 * degrees of freedom Welch-Satterthwaite. delta = log(1 + threshold). */
typedef struct {
    double ratio;  /* exp(d): > 1 means b takes longer */
    double lo, hi; /* Welch t interval of the ratio at the requested confidence */
    double se_log; /* standard error of d */
    double df;
    /* minimum-effect test of H0 |d| <= delta: the p-value at the least favourable null
     * d = +-delta, P(T >= (|d| - delta) / se) + P(T >= (|d| + delta) / se) */
    double p_change;
    /* TOST of H0 |d| >= delta: the larger one-sided p, P(T >= (delta - |d|) / se) */
    double p_equiv;
    /* fraction: the true change (either way) the change test detects with the requested power
     * at level alpha: exp(delta + (t_{1-alpha} + t_power) se) - 1 */
    double mde;
} sp_ab_mintest_t;

/* The minimum-effect and equivalence tests of one point. Needs na, nb >= 2; threshold >= 0
 * (a fraction); alpha, power and conf in (0, 1). When no run varies, se is 0, the interval the
 * point, p_change 0 when |d| > delta else 1, p_equiv 0 when |d| < delta else 1, mde the
 * threshold. SP_ERR_INVALID for bad arguments, a value <= 0 or NaN, NULL pointers. */
sp_status_t sp_ab_min_effect(const double *a, size_t na, const double *b, size_t nb,
                             double threshold, double alpha, double power, double conf,
                             sp_ab_mintest_t *out_p);

/* The minimum detectable change (a fraction) of the change test at standard error se_log and
 * df degrees of freedom (see mde above); NaN for bad arguments. */
double sp_ab_mde(double se_log, double df, double threshold, double alpha, double power);

/* Runs per side (equal sides, Student df 2n - 2) for the change test to detect a true change of
 * target (a fraction, > threshold) with the given power at alpha, when one run's value has a
 * log standard deviation of sd_run_log: the smallest n in [2, max_runs] with
 * mde(sd_run_log sqrt(2/n)) <= target; max_runs + 1 when none is; -1 for bad arguments. */
int sp_ab_runs_needed(double sd_run_log, double threshold, double target, double alpha,
                      double power, int max_runs);

typedef enum {
    SP_AB_INCONCLUSIVE = 0, /* neither a change beyond the threshold nor equivalence shown */
    SP_AB_WITHIN,           /* equivalence shown: |change| < threshold */
    SP_AB_SLOWER,           /* b slower by more than the threshold */
    SP_AB_FASTER,           /* b faster by more than the threshold */
} sp_ab_verdict_t;

/* Verdicts over n points: the p_change and (separately) p_equiv values are adjusted by
 * Benjamini-Hochberg across the points; a point is slower/faster when its adjusted p_change is
 * below fdr (its direction from the sign of d), within when its adjusted p_equiv is below fdr,
 * else inconclusive. q_change, q_equiv (may be NULL) receive the adjusted values. SP_ERR_INVALID
 * for NULL with n > 0, fdr outside (0, 1) or a NaN p; SP_ERR_NOMEM. */
sp_status_t sp_ab_verdicts(const sp_ab_mintest_t *t, size_t n, double fdr, double *q_change,
                           double *q_equiv, sp_ab_verdict_t *v);

/* "slower", "faster", "within threshold", "inconclusive". */
const char *sp_ab_verdict_name(sp_ab_verdict_t v);

#endif
