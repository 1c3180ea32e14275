/* Statistics of a sample sequence in time order: confidence intervals of the median and the mean
 * that allow for autocorrelation (batch statistics), a trend test and a drift flag, and the
 * stopping rule built on them. Pure functions, no MPI, no allocation. */
#ifndef SP_SEQSTATS_H
#define SP_SEQSTATS_H

#include <stddef.h>

/* Fewest batches an interval is built from; fewer and the point cannot converge. */
#define SP_SEQ_MIN_BATCHES 10
/* A batch spans at least this many integrated autocorrelation times (see sp_seq_batch_len). */
#define SP_SEQ_BATCH_TAUS 2.0
/* Most batches the trend test uses. */
#define SP_SEQ_TREND_BATCHES 50
/* The stopping rule refuses to stop while the trend test's p-value is below this and the
 * estimated change over the series reaches epsilon (calibrated; see docs/METHODOLOGY.md). */
#define SP_SEQ_STOP_ALPHA 0.3

typedef struct {
    double conf;          /* confidence of the intervals, e.g. 0.95 */
    double drift_alpha;   /* two-sided level of the trend test, e.g. 0.05 */
    double drift_min_rel; /* smallest relative change over the series that counts as drift */
} sp_seq_params_t;

typedef struct {
    size_t n;
    size_t batches;     /* b, the number of batches the intervals come from */
    size_t batch_len;   /* shortest batch: batch k is [k n / b, (k+1) n / b), floor(n/b) long
                           or one more */
    int enough_batches; /* 1 when b >= SP_SEQ_MIN_BATCHES at the length the dependence needs */
    double lag1;        /* lag-1 autocorrelation, from signs about the median (robust) */
    double tau;         /* autocorrelation time used for sizing: (1+r)/(1-r), r bias-corrected */
    double n_eff;       /* effective sample size for the median: n / variance inflation, <= n */
    double median;
    double med_lo; /* dependence-aware CI of the median, conf */
    double med_hi;
    int ci_valid; /* 1 when the ranks of the interval exist (else med_lo/hi are min/max) */
    double mean;
    double mean_lo; /* dependence-aware CI of the mean, conf */
    double mean_hi;
    double mk_s;      /* Mann-Kendall S over the trend batches' medians */
    double mk_var;    /* its variance under no trend (ties corrected) */
    double trend_p;   /* two-sided p-value of the trend test */
    double trend_rel; /* their least-squares slope x n / median: relative change over x */
    int drift;        /* trend_p < drift_alpha and |trend_rel| >= drift_min_rel */
} sp_seqstats_t;

/* Defaults: conf 0.95, drift_alpha 0.05, drift_min_rel 0 (the stopping rule passes epsilon). */
sp_seq_params_t sp_seq_params_default(void);

/* Doubles of scratch that sp_seq_analyze needs for n samples. */
size_t sp_seq_scratch_len(size_t n);

/*
 * Analyze x[0..n) in time order (no NaN; not modified; n == 0 gives NaNs and no CI). scratch holds
 * sp_seq_scratch_len(n) doubles and must not alias x; out_p is always set. Deterministic.
 * r is lag1 plus its small-sample bias (1 + 4 lag1)/n.
 * - Median: the sign test inverted, ranks (n+1)/2 -+ t_{b-1} sqrt(n v), where v, the long-run
 *   variance per sample of 1[x_t < median], is the larger of the batch-means estimate over b
 *   contiguous batches and sp_seq_sign_tau(r)/4 (an AR(1) model; 1/4 when independent).
 * - Mean: mean -+ t_{b-1} sqrt(w/n), w the larger of the batch-means estimate and tau s^2.
 * - Batches: sp_seq_batch_len(n, r) long, so at least SP_SEQ_MIN_BATCHES when n allows.
 * - Trend: Mann-Kendall over the medians of at most SP_SEQ_TREND_BATCHES batches of at least
 *   SP_SEQ_BATCH_TAUS tau samples; trend_rel from their least-squares slope.
 */
void sp_seq_analyze(const double *x, size_t n, const sp_seq_params_t *p, double *scratch,
                    sp_seqstats_t *out_p);

/* Relative half-width of the median's CI: max(median-lo, hi-median) / median; +inf when the CI
 * is not valid or the median is not positive. */
double sp_seq_rel_halfwidth(const sp_seqstats_t *s);

/* Stopping rule: n >= min_samples, enough batches, a valid CI whose relative half-width is
 * <= epsilon, no drift flagged, and no trend of at least epsilon at level SP_SEQ_STOP_ALPHA. */
int sp_seq_converged(const sp_seqstats_t *s, size_t min_samples, double epsilon);

/* Sample autocorrelation of x[0..n) at lag k: sum (x_t - m)(x_{t+k} - m) / sum (x_t - m)^2 with
 * m the mean of all n. 0 when n <= k or the series is constant. */
double sp_seq_autocorr(const double *x, size_t n, size_t k);

/* Lag-1 autocorrelation from signs about a center c: r_s, the lag-1 autocorrelation of
 * 1[x_t < c] (ties count 1/2), mapped to the Gaussian scale as sin(pi r_s / 2). Immune to
 * outliers; for a Gaussian series it estimates the Pearson value (Sheppard's arcsine law). */
double sp_seq_lag1_sign(const double *x, size_t n, double c);

/* Integrated autocorrelation time of the indicators 1[x_t < median] of a Gaussian AR(1) series
 * with lag-1 autocorrelation r: 1 + 2 sum_k (2/pi) asin(r^k) (r clipped to [0, 0.99]). The
 * median's variance is at least 1/(4n) times this. */
double sp_seq_sign_tau(double r);

/* Batch length for n samples at lag-1 autocorrelation r (negative r counts as 0):
 * max(ceil(sqrt(n)), ceil(SP_SEQ_BATCH_TAUS (1+r)/(1-r))), lowered to n / SP_SEQ_MIN_BATCHES
 * (at least 1) when n is too short; *enough_p says whether the lowering was not needed. */
size_t sp_seq_batch_len(size_t n, double r, int *enough_p);

/* Mann-Kendall S of y[0..n), its variance with the ties correction, and the two-sided p-value
 * of z = (S - sign S) / sqrt(var) under the normal approximation (1 when var is 0). */
void sp_seq_mann_kendall(const double *y, size_t n, double *s_p, double *var_p, double *p_p);

/* Quantile q in (0,1) of Student's t with df >= 1 degrees of freedom: to about 1e-12 for
 * integer df up to 1000 (Newton on the exact CDF), a Cornish-Fisher expansion otherwise. */
double sp_seq_t_quantile(double q, double df);

/* Quantile q in (0,1) of the standard normal distribution (Newton on erfc, within 1e-12). */
double sp_seq_norm_quantile(double q);

#endif
