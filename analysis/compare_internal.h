/* Shared by the modules of `scaleprobe compare` (not a public API): the runs of each side and
 * their metrics (compare_runs.c), what differs between two files (compare_diff.c), per-point
 * ratios and verdicts (compare_points.c), scaling and expected-vs-actual tables
 * (compare_scaling.c); the command itself is compare.c. */
#ifndef SP_COMPARE_INTERNAL_H
#define SP_COMPARE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "abstats.h"
#include "reader.h"
#include "status.h"

#define SP_CMP_BOOT_ITERS 2000
#define SP_CMP_BOOT_SEED 20261203u

/* The proxy's per-step metrics, averaged over ranks: the step time and the components
 * "compare predicted measured" explains a gap with. */
enum { PM_STEP, PM_BUSY, PM_BUBBLE, PM_EXPOSED, PM_TP, PM_PP, PM_DP, PM_COUNT };
typedef struct {
    const char *label;
    size_t offset; /* of the ms value in sp_proxy_rank_row_t */
} sp_cmp_proxy_metric_t;
extern const sp_cmp_proxy_metric_t sp__cmp_proxy_metric[PM_COUNT];

/* Where differences go: text lines ("#   what key: A x, B y") or JSON objects. */
typedef struct {
    FILE *out;
    int json;
    int n;
} emit_t;

/* One measured quantity of a file, keyed by its label: a sweep point's sample times, or one of
 * the proxy's per-step times. Values in microseconds; lower is better. */
typedef struct {
    char label[96];
    double *v;
    size_t n;
    double busbw;   /* sweep points: the file's bus bandwidth (GB/s), NaN otherwise */
    uint32_t batch; /* sweep points: operations timed back to back per sample (k); 0 otherwise */
    int comparable; /* 2+ positive values: a ratio with a CI can be formed */
} metric_t;

typedef struct {
    metric_t *m;
    size_t n;
} metrics_t;

typedef struct {
    sp_reader_t rd;
    metrics_t ms;
    char method[64]; /* /config attribute method; "default" when absent */
} run_t;

typedef struct {
    int world, nodes;
    run_t **runs; /* the runs of this shape, in command-line order */
    size_t n;
} shape_t;

typedef struct {
    const char *name; /* "A" or "B" */
    run_t *runs;
    size_t n;
    shape_t *shapes; /* sorted by node count, then ranks */
    size_t nshapes;
} side_t;

/* Run-to-run spread assumed when the files hold no run-to-run information (one run per side)
 * and --run-cv is not given: a log standard deviation of 2% of a run's median (docs/METHODOLOGY.md,
 * A/B comparison). */
#define SP_CMP_DEFAULT_RUN_CV 0.02
#define SP_CMP_POWER 0.8

/* How points are judged: fractions; run_cv is the run-to-run spread assumed with one run a side
 * (0: SP_CMP_DEFAULT_RUN_CV). */
typedef struct {
    double threshold, fdr, run_cv;
} cmp_settings_t;

/* Where the run-to-run spread of a point's runs-needed estimate came from. */
enum { CV_GIVEN, CV_OBSERVED, CV_DEFAULT };

typedef struct {
    char label[96];
    int world, nodes;
    size_t na, nb;     /* runs per side */
    double a_us, b_us; /* one run per side: its median; more: geometric mean of run medians */
    sp_ab_ratio_t r;   /* ratio, 95% CI and p (with has_test: the test's p_change) */
    int has_test;      /* 2+ runs per side: minimum-effect and equivalence tests in t */
    sp_ab_mintest_t t;
    double q, q_equiv; /* BH-adjusted p_change and p_equiv; NaN without a test */
    double sd_run_log; /* spread of one run's value, for runs_needed */
    int cv_source;     /* CV_* */
    int runs_needed;   /* per side, to detect twice the threshold with SP_CMP_POWER */
    const char *verdict;
} point_t;

/* Counts of the verdicts over the judged points. */
typedef struct {
    int judged, slower, faster, within, inconclusive;
} verdict_counts_t;

typedef struct {
    char label[96];
    int world, nodes;
    double value[2]; /* per side: busbw (GB/s) or tokens/s; NaN where the side lacks the shape */
    double eff[2];   /* against the side's smallest shape */
    double eff_lo[2]; /* its 95% interval over runs (sp_ab_runs_ratio); NaN with one run on */
    double eff_hi[2]; /* both shapes, where run-to-run spread is unknown */
} scale_row_t;

typedef struct {
    const char *label;
    double predicted_ms, measured_ms, lo_ms, hi_ms;
} eva_row_t;

/* ---- compare_diff.c ---- */

/* What differs between two files (environment, fingerprint, versions, launch, options, shape,
 * backend), communication settings first. */
void sp__cmp_emit_differences(const sp_reader_t *a, const sp_reader_t *b, emit_t *e);

/* ---- compare_runs.c ---- */

/* Open the n files of a side, read their metrics and group them by shape. On failure one
 * message was printed; side_close frees what was opened either way. */
sp_status_t sp__cmp_side_open(side_t *sd, const char *name, char **files, size_t n);
void sp__cmp_side_close(side_t *sd);
const shape_t *sp__cmp_find_shape(const side_t *sd, int world, int nodes);
const metric_t *sp__cmp_find_metric(const metrics_t *ms, const char *label);
/* Why two runs' workloads differ, into why ("" when they do not). */
void sp__cmp_workload_difference(const run_t *x, const run_t *y, int same_shape, int common,
                                 char *why, size_t size);

/* Why the runs' timing methods (/config method) differ ("" when they do not). */
void sp__cmp_method_difference(const side_t *sides, int nsides, char *why, size_t size);
/* Why the runs' batch sizes k differ at some point ("" when they do not): a warning. */
void sp__cmp_batch_difference(const side_t *sides, int nsides, char *why, size_t size);

/* ---- compare_points.c ---- */

double sp__cmp_median_of(const double *v, size_t n);
/* The points of shape ga (side A) against gb (side B), at most max. */
size_t sp__cmp_compare_shape(const shape_t *ga, const shape_t *gb, const cmp_settings_t *cs,
                             point_t *pts, size_t max);
/* Verdicts of the points with a test (Benjamini-Hochberg at fdr over them) into *counts_p; the
 * others get "no verdict". SP_ERR_NOMEM. */
sp_status_t sp__cmp_judge(point_t *pts, size_t n, double fdr, verdict_counts_t *counts_p);
/* The runs per side to suggest: the most any point needs, and the median over points. */
void sp__cmp_runs_suggested(const point_t *pts, size_t n, int *most_p, int *median_p);
void sp__cmp_print_table(const point_t *pts, size_t n, FILE *out);
void sp__cmp_print_most_changed(const point_t *pts, size_t n, FILE *out);
void sp__cmp_json_points(const point_t *pts, size_t n, FILE *out);

/* ---- compare_scaling.c ---- */

/* Scaling rows over the shapes of the sides (*rows_p: caller frees). */
size_t sp__cmp_scaling_rows(const side_t *sides, int nsides, scale_row_t **rows_p);
void sp__cmp_print_scaling(const scale_row_t *rows, size_t n, int nsides, int proxy, FILE *out);
void sp__cmp_json_scaling(const scale_row_t *rows, size_t n, FILE *out);
/* A prediction against measured runs of its shape: one row per proxy metric (PM_COUNT at most). */
size_t sp__cmp_expected_vs_actual(const run_t *pred, const side_t *meas, eva_row_t *rows);
void sp__cmp_print_eva(const eva_row_t *rows, size_t n, const run_t *pred, size_t nmeas, FILE *out);
void sp__cmp_json_eva(const eva_row_t *rows, size_t n, FILE *out);
/* Every run of the side is a prediction. */
int sp__cmp_all_predicted(const side_t *sd);

/* Two link matrices (/links of one run a side): the links that changed, matched by host names,
 * with bootstrap CIs of their time ratios (compare_links.c). Returns the exit code. */
int sp__cmp_links(const sp_reader_t *ra, const sp_reader_t *rb, double threshold, FILE *out);

#endif
