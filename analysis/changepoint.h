/* Change points in one series of numbers (scaleprobe regress, issues 7 and 14): a screen for
 * isolated outliers, then binary segmentation with one of two tests: E-divisive (Matteson & James
 * 2014, energy statistic) with a block permutation test where the series is long enough for
 * permutations to reach small p-values, else a t scan over the split points with a Bonferroni
 * correction. Pure functions, no MPI or HDF5; deterministic for a given seed.
 * docs/METHODOLOGY.md, "Regressions over a series", gives the reasons. */
#ifndef SP_CHANGEPOINT_H
#define SP_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Pair distances one test may compute when it raises the permutation count of a short series:
 * 2e6 gives 9,999 permutations up to 14 values, 2,222 at 30, the minimum from 100 on. */
#define SP_CP_PERM_BUDGET 2e6

/* Which test decides a split. AUTO: PERMUTATION when its floor (smallest reachable p-value,
 * sp_cp_perm_floor) times nseries is at most alpha / 4, so that a lone change among nseries
 * tested series can survive Benjamini-Hochberg; TSCAN otherwise. */
typedef enum { SP_CP_AUTO = 0, SP_CP_PERMUTATION, SP_CP_TSCAN } sp_cp_method_t;

/* Series of at least this many values are permuted in blocks of floor(n^(1/4)) consecutive
 * values (2 from 16 values, 3 from 81), so that run-to-run drift (neighbouring runs alike) stays
 * within a block. Longer blocks (cube root) cost too much power: they carry a level change of
 * another part of the series into every rearrangement. */
#define SP_CP_BLOCK_MIN_N 16

typedef struct {
    size_t min_segment;   /* fewest values a change point may leave on either side; >= 2 */
    int permutations;     /* permutations per significance test, at least; >= 19 */
    int max_permutations; /* short series get more, up to this many, while permutations * n^2
                           * stays under SP_CP_PERM_BUDGET; <= permutations: exactly
                           * permutations */
    double alpha;         /* a change point is kept when its permutation p-value is < alpha */
    uint64_t seed;        /* seed of the permutations */
    size_t max_changes;   /* stop after this many change points; 0: no limit but the series */
    double outlier_z; /* robust z beyond which an isolated value is an outlier; <= 0: no screen */
    double outlier_min_dev; /* and its distance to every near neighbour must exceed this (units
                             * of the series); 0: no floor */
    sp_cp_method_t method;  /* default AUTO */
    size_t nseries;         /* series tested together (AUTO's rule); 0 counts as 1 */
    size_t block;           /* permutation block length; 0: floor(n^(1/4)) from SP_CP_BLOCK_MIN_N
                             * values on, else 1 */
} sp_cp_opts_t;

typedef struct {
    size_t index;          /* first value of the new segment (1 .. n-1) */
    sp_cp_method_t method; /* the test that kept it (PERMUTATION or TSCAN) */
    double stat;           /* PERMUTATION: the energy statistic Q of the split within the segment it
                            * divided; TSCAN: the split's pooled two-sample t */
    double p;              /* PERMUTATION: (1 + #{permuted max Q >= Q}) / (permutations + 1);
                            * TSCAN: min(1, candidates * two-sided p of t with m - 2 df) */
    int permutations;      /* how many the test drew (0 for TSCAN) */
    size_t candidates;     /* split points the test chose among (Bonferroni's factor for TSCAN) */
    double mean_before;    /* means of the segments on either side */
    double mean_after;
    double diff_lo; /* Welch t interval of mean_after - mean_before at confidence
                     * 1 - 0.05 / candidates: simultaneous over the candidate splits, so it
                     * keeps 95% coverage although the split was chosen for its large
                     * difference (mean_after - mean_before itself is biased away from 0) */
    double diff_hi;
    size_t before_start;  /* the segments on either side: [before_start, index) and */
    size_t after_end;     /* [index, after_end), bounded by the neighbouring change points */
    double median_before; /* medians of the series over those segments */
    double median_after;
} sp_cp_change_t;

typedef struct {
    size_t index;
    double value;       /* as given */
    double replacement; /* what change-point detection used instead */
    double z;           /* distance to the nearest of its 4 nearest values, over sqrt(2) times
                         * the noise scale */
} sp_cp_outlier_t;

typedef struct {
    sp_cp_change_t *changes; /* nchanges, by increasing index */
    size_t nchanges;
    sp_cp_outlier_t *outliers; /* noutliers, by increasing index */
    size_t noutliers;
    double *clean; /* the n values detection ran on (outliers replaced) */
    size_t n;
    double first_p; /* p-value of the first test (the whole series' best split), significant or
                     * not; NaN when the series is too short to test. For control over many
                     * series (regress adjusts these across metrics). */
    int first_permutations; /* how many permutations that test drew: its p is at least
                             * 1 / (first_permutations + 1); 0 for TSCAN */
    sp_cp_method_t method;  /* the test used on this series (PERMUTATION or TSCAN) */
    size_t block;           /* permutation block length used (PERMUTATION) */
    double floor;           /* sp_cp_perm_floor of the series: the smallest p-value its
                             * permutation test can reach, whichever test was used */
} sp_cp_result_t;

/* Defaults: min_segment 3, 199 to 9,999 permutations, alpha 0.05, a fixed seed, no limit on
 * changes, outlier_z 5, no outlier floor, method AUTO for one series, automatic blocks. */
void sp_cp_opts_default(sp_cp_opts_t *opts);

/* The permutation block length opts gives a series of n values (>= 1). */
size_t sp_cp_block_len(const sp_cp_opts_t *opts, size_t n);

/* The smallest p-value the permutation test can reach on n values: sp_ss_perm_floor of the
 * number of whole blocks, n / sp_cp_block_len. */
double sp_cp_perm_floor(const sp_cp_opts_t *opts, size_t n);

/* The test opts choose for a series of n values (PERMUTATION or TSCAN; see sp_cp_method_t). */
sp_cp_method_t sp_cp_method_for(const sp_cp_opts_t *opts, size_t n);

/*
 * Outlier screen. Value i is an outlier when it is far from each of its (up to) 4 nearest
 * neighbours (i-2, i-1, i+1, i+2): min |x[i] - x[j]| > outlier_z * sqrt(2) * s and
 * > outlier_min_dev, where s is the local noise scale: the median absolute first difference of
 * the 10 differences nearest to i that do not involve x[i], at least the lower quartile of all
 * of them (both scaled to a normal sd). A level shift never qualifies: a value next to a shift
 * has a neighbour on its own level. clean (n values, may alias x) gets x with each outlier replaced
 * by the median of its 2 nearest neighbours on the side that is closer to it. flags and z (n
 * values each, either may be NULL) get 1 for outliers, and every value's z (infinite when s is
 * 0 and the value differs). Fewer than 3 values: no outliers. SP_ERR_INVALID for NULL x or clean
 * with n > 0 or a non-finite value; SP_ERR_NOMEM. *nout_p is set on success.
 */
sp_status_t sp_cp_outliers(const double *x, size_t n, const sp_cp_opts_t *opts, double *clean,
                           int *flags, double *z, size_t *nout_p);

/*
 * Binary segmentation over x[0..n) with the test sp_cp_method_for chooses. PERMUTATION
 * (E-divisive): the split of a segment that maximizes the energy statistic
 * Q = m1 m2 / (m1 + m2) * (2 mean|L - R| - mean|L - L'| - mean|R - R'|) over splits leaving at
 * least min_segment values each side; among all current segments the largest Q is tested by
 * permuting the blocks within every segment (p < alpha keeps it). TSCAN: in each segment the
 * split with the largest |pooled t|, its p-value times the number of candidate splits
 * (Bonferroni); the segment with the smallest such p is kept when p < alpha. Repeat until a test
 * fails or no segment can be split. changes (room for max values) gets the kept change points by
 * index; if more are found than fit, the first max found are kept. A series shorter than 2 *
 * min_segment gives none. SP_ERR_INVALID for bad options, NULL pointers with n > 0 or a non-finite
 * value; SP_ERR_NOMEM. O(permutations * n^2) per change point tested.
 */
sp_status_t sp_cp_detect(const double *x, size_t n, const sp_cp_opts_t *opts,
                         sp_cp_change_t *changes, size_t max, size_t *nchanges_p);

/* The same, also giving the p-value of the first test (NaN when none could be made) and its
 * permutation count (either pointer may be NULL). */
sp_status_t sp_cp_detect_first(const double *x, size_t n, const sp_cp_opts_t *opts,
                               sp_cp_change_t *changes, size_t max, size_t *nchanges_p,
                               double *first_p, int *first_perms_p);

/* Outlier screen, then detection on the cleaned series. res is caller storage, filled on
 * success (free its arrays with sp_cp_result_cleanup); errors as above. */
sp_status_t sp_cp_analyze(const double *x, size_t n, const sp_cp_opts_t *opts, sp_cp_result_t *res);

/* Free what sp_cp_analyze allocated and zero res; NULL is a no-op. */
void sp_cp_result_cleanup(sp_cp_result_t *res);

#endif
