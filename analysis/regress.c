/* The regress command (see regress.h; the method in changepoint.h and docs/METHODOLOGY.md,
 * "Regressions over a series"). */
#include "regress.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abstats.h"
#include "changepoint.h"
#include "coll.h"
#include "dtype.h"
#include "json.h"
#include "launcher.h"
#include "options.h"
#include "reader.h"
#include "regress_changes.h"
#include "regress_metrics.h"
#include "stats.h"

#define MIN_RUNS 3

typedef struct {
    char path[4096];
    char created[64];
    char kind[32]; /* "coll" or "proxy": the files of one series must agree */
} run_t;

typedef struct {
    const metric_t *metric;
    size_t run;           /* first run after the shift (position in the ordered runs) */
    double before, after; /* medians of the segments on either side (metric's unit) */
    double bw_before, bw_after;
    sp_ab_ratio_t r; /* ratio after/before of geometric means with the simultaneous Welch t
                      * interval of changepoint.h (NaN when the metric is not positive) */
    double p;        /* the test's p-value (t scan: Bonferroni-adjusted; permutation) */
    sp_cp_method_t method;
    size_t candidates; /* split points the test chose among */
    double floor;      /* the permutation floor of the metric's series */
} shift_t;

typedef struct {
    const metric_t *metric;
    size_t run;
    double value, neighbours, z;
} outlier_t;

typedef struct {
    shift_t *shifts;
    size_t nshifts, shifts_cap;
    outlier_t *outliers;
    size_t noutliers, outliers_cap;
    size_t analyzed;   /* metrics with at least MIN_RUNS runs */
    double *metric_p;  /* per metric: p of its first change-point test (NaN: not analyzed) */
    int *metric_perms; /* and how many permutations that test drew */
} findings_t;

/* ---- analysis ---- */

static int push_shift(findings_t *f, const shift_t *s)
{
    if (f->nshifts == f->shifts_cap) {
        size_t cap = f->shifts_cap ? 2 * f->shifts_cap : 16;
        shift_t *p = realloc(f->shifts, cap * sizeof(*p));
        if (p == NULL) {
            return -1;
        }
        f->shifts = p;
        f->shifts_cap = cap;
    }
    f->shifts[f->nshifts++] = *s;
    return 0;
}

static int push_outlier(findings_t *f, const outlier_t *o)
{
    if (f->noutliers == f->outliers_cap) {
        size_t cap = f->outliers_cap ? 2 * f->outliers_cap : 16;
        outlier_t *p = realloc(f->outliers, cap * sizeof(*p));
        if (p == NULL) {
            return -1;
        }
        f->outliers = p;
        f->outliers_cap = cap;
    }
    f->outliers[f->noutliers++] = *o;
    return 0;
}

/* Median of the finite values of v[a..b) into tmp; NaN when none. */
static double finite_median(const double *v, size_t a, size_t b, double *tmp)
{
    size_t k = 0;

    for (size_t i = a; i < b; i++) {
        if (isfinite(v[i])) {
            tmp[k++] = v[i];
        }
    }
    return sp_stats_median(tmp, k, tmp);
}

/*
 * One metric: its series over the runs that have it (in run order), the outlier screen and the
 * change points on the log of the values when all are positive (timings vary by ratios, and a
 * ratio threshold is then a fixed distance), else on the values; then each change's size from
 * the cleaned values. 0 on success, -1 out of memory or a failed analysis.
 */
static int analyze_metric(const metric_t *m, size_t idx, const size_t *order, size_t nruns,
                          const sp_cp_opts_t *base, double threshold, findings_t *f)
{
    double *y = malloc(nruns * sizeof(*y)), *raw = malloc(nruns * sizeof(*raw));
    double *bw = malloc(nruns * sizeof(*bw)), *tmp = malloc(nruns * sizeof(*tmp));
    size_t *pos = malloc(nruns * sizeof(*pos));
    size_t n = 0;
    int positive = 1, rc = -1;
    sp_cp_opts_t o = *base;
    sp_cp_result_t res;

    memset(&res, 0, sizeof(res));
    if (y == NULL || raw == NULL || bw == NULL || tmp == NULL || pos == NULL) {
        goto out;
    }
    for (size_t k = 0; k < nruns; k++) {
        double v = m->value[order[k]];
        if (isfinite(v)) {
            pos[n] = k;
            raw[n] = v;
            bw[n] = m->busbw[order[k]];
            positive &= v > 0.0;
            n++;
        }
    }
    if (n < MIN_RUNS) {
        rc = 0;
        goto out;
    }
    f->analyzed++;
    for (size_t i = 0; i < n; i++) {
        y[i] = positive ? log(raw[i]) : raw[i];
    }
    if (positive) {
        o.outlier_min_dev = log1p(threshold);
    } else {
        for (size_t i = 0; i < n; i++) {
            tmp[i] = fabs(raw[i]);
        }
        o.outlier_min_dev = threshold * sp_stats_median(tmp, n, tmp);
    }
    if (sp_cp_analyze(y, n, &o, &res) != SP_OK) {
        goto out;
    }
    f->metric_p[idx] = res.first_p;
    f->metric_perms[idx] = res.first_permutations;
    for (size_t i = 0; i < n; i++) {
        y[i] = positive ? exp(res.clean[i]) : res.clean[i]; /* back to the metric's unit */
    }
    for (size_t c = 0; c < res.nchanges; c++) {
        const sp_cp_change_t *cp = &res.changes[c];
        size_t a = cp->before_start, at = cp->index, b = cp->after_end;
        shift_t s;
        int big;
        memset(&s, 0, sizeof(s));
        s.metric = m;
        s.run = pos[at];
        s.p = cp->p;
        s.method = cp->method;
        s.candidates = cp->candidates;
        s.floor = res.floor;
        s.before = finite_median(y, a, at, tmp);
        s.after = finite_median(y, at, b, tmp);
        s.bw_before = finite_median(bw, a, at, tmp);
        s.bw_after = finite_median(bw, at, b, tmp);
        s.r.ratio = s.before > 0.0 ? s.after / s.before : NAN;
        s.r.lo = s.r.hi = s.r.p = NAN;
        if (positive) {
            /* on the log values: the ratio of geometric means, and its interval, simultaneous
             * over the candidate splits (the split was chosen for its large difference) */
            s.r.ratio = exp(cp->mean_after - cp->mean_before);
            s.r.lo = exp(cp->diff_lo);
            s.r.hi = exp(cp->diff_hi);
            s.r.p = cp->p;
        }
        /* a change from or to zero (a metric that was absent) has no ratio but is a change */
        big = isfinite(s.r.ratio) ? fabs(s.r.ratio - 1.0) > threshold : s.after != s.before;
        if (big && push_shift(f, &s) != 0) {
            goto out;
        }
    }
    for (size_t i = 0; i < res.noutliers; i++) {
        const sp_cp_outlier_t *co = &res.outliers[i];
        outlier_t ot = {m, pos[co->index], raw[co->index], y[co->index], co->z};
        if (push_outlier(f, &ot) != 0) {
            goto out;
        }
    }
    rc = 0;
out:
    sp_cp_result_cleanup(&res);
    free(pos);
    free(tmp);
    free(bw);
    free(raw);
    free(y);
    return rc;
}

/* Drop what analyze_metric found for metric m (before analyzing it again). */
static void drop_findings(findings_t *f, const metric_t *m)
{
    size_t k = 0;

    for (size_t i = 0; i < f->nshifts; i++) {
        if (f->shifts[i].metric != m) {
            f->shifts[k++] = f->shifts[i];
        }
    }
    f->nshifts = k;
    k = 0;
    for (size_t i = 0; i < f->noutliers; i++) {
        if (f->outliers[i].metric != m) {
            f->outliers[k++] = f->outliers[i];
        }
    }
    f->noutliers = k;
}

/* A permutation p-value is at least 1 / (permutations + 1), and Benjamini-Hochberg over m
 * metrics multiplies the smallest by m: with 150 metrics and 2,222 permutations a shift that no
 * permutation matched would still get q = 0.07. Metrics whose first test no permutation matched
 * are tested again with enough permutations for their floor to be a quarter of alpha / m (at
 * most REFINE_MAX). Only those: the others' p-values are already resolved. */
#define REFINE_MAX 100000
static int refine_at_floor(findings_t *f, const metric_list_t *l, const size_t *order, size_t nruns,
                           const sp_cp_opts_t *base, double threshold)
{
    size_t m = 0;
    double need;
    sp_cp_opts_t o = *base;

    for (size_t i = 0; i < l->n; i++) {
        m += !isnan(f->metric_p[i]);
    }
    need = ceil(4.0 * (double)m / base->alpha);
    need = need > REFINE_MAX ? REFINE_MAX : need;
    need = need < (double)base->permutations ? (double)base->permutations : need;
    o.permutations = o.max_permutations = (int)need;
    for (size_t i = 0; i < l->n; i++) {
        double floor_p = 1.0 / ((double)f->metric_perms[i] + 1.0);
        /* metric_perms 0: the t scan decided; its p-value has no Monte Carlo floor */
        if (isnan(f->metric_p[i]) || f->metric_perms[i] == 0 ||
            f->metric_p[i] > floor_p * 1.000001 || (double)f->metric_perms[i] >= need) {
            continue;
        }
        drop_findings(f, &l->m[i]);
        f->analyzed--; /* analyze_metric counts it again */
        if (analyze_metric(&l->m[i], i, order, nruns, &o, threshold, f) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Many metrics are tested at once: Benjamini-Hochberg over the p-values of every analyzed
 * metric's first test (is there any change in this series?) at level alpha; the shifts of a
 * metric whose q exceeds alpha are dropped. Within a kept metric, further splits are tested at
 * alpha as before. 0, or -1 out of memory. */
static int fdr_over_metrics(findings_t *f, const metric_list_t *l, double alpha)
{
    double *p = malloc((l->n + 1) * sizeof(*p));
    size_t *which = malloc((l->n + 1) * sizeof(*which));
    size_t n = 0, kept = 0;

    if (p == NULL || which == NULL) {
        free(p);
        free(which);
        return -1;
    }
    for (size_t i = 0; i < l->n; i++) {
        if (!isnan(f->metric_p[i])) {
            p[n] = f->metric_p[i];
            which[n++] = i;
        }
    }
    sp_ab_bh_adjust(p, n, p);
    for (size_t k = 0; k < n; k++) {
        f->metric_p[which[k]] = p[k]; /* from here on: the metric's q */
    }
    for (size_t s = 0; s < f->nshifts; s++) {
        size_t idx = (size_t)(f->shifts[s].metric - l->m);
        if (f->metric_p[idx] <= alpha) {
            f->shifts[kept++] = f->shifts[s];
        }
    }
    f->nshifts = kept;
    free(p);
    free(which);
    return 0;
}

/* ---- output ---- */

static const char *test_name(sp_cp_method_t m)
{
    return m == SP_CP_TSCAN ? "t-scan" : "perm";
}

/* What changed at every run where a shift starts, each run once, in run order. */
static void print_what_changed(const run_t *runs, const size_t *order, size_t nruns,
                               const findings_t *f, int json, FILE *out)
{
    int n = 0;

    for (size_t k = 1; k < nruns; k++) {
        int at_k = 0;
        for (size_t i = 0; i < f->nshifts && !at_k; i++) {
            at_k = f->shifts[i].run == k;
        }
        if (at_k) {
            if (json) {
                fprintf(out, "%s\n  ", n ? "," : "");
            }
            sp__regress_what_changed(k, runs[order[k - 1]].path, runs[order[k]].path, json, out);
            n++;
        }
    }
}

static const char *direction(const shift_t *s)
{
    return s->after > s->before ? "slower" : "faster";
}

static void print_json(const run_t *runs, const size_t *order, size_t nruns, const sp_cp_opts_t *o,
                       double threshold, int by_time, const findings_t *f, FILE *out)
{
    fprintf(out, "{\"runs\": [");
    for (size_t k = 0; k < nruns; k++) {
        fprintf(out, "%s\n  {\"run\": %zu, \"path\": ", k ? "," : "", k);
        sp_json_str(out, runs[order[k]].path);
        fprintf(out, ", \"created\": ");
        sp_json_str(out, runs[order[k]].created);
        fprintf(out, "}");
    }
    fprintf(out,
            "\n ],\n \"method\": {\"order\": \"%s\", \"test\": \"%s\", "
            "\"permutation_floor\": %g, \"block\": %zu, \"series\": %zu, "
            "\"permutations_min\": %d, \"permutations_max\": %d, \"alpha\": %g, "
            "\"threshold\": %g, \"min_segment\": %zu, \"outlier_z\": %g},\n \"shifts\": [",
            by_time ? "created" : "given", test_name(sp_cp_method_for(o, nruns)),
            sp_cp_perm_floor(o, nruns), sp_cp_block_len(o, nruns), o->nseries, o->permutations,
            o->max_permutations, o->alpha, threshold, o->min_segment, o->outlier_z);
    for (size_t i = 0; i < f->nshifts; i++) {
        const shift_t *s = &f->shifts[i];
        fprintf(out, "%s\n  {\"metric\": ", i ? "," : "");
        sp_json_str(out, s->metric->label);
        fprintf(out, ", \"unit\": ");
        sp_json_str(out, s->metric->unit);
        fprintf(out, ", \"run\": %zu, \"path\": ", s->run);
        sp_json_str(out, runs[order[s->run]].path);
        sp_json_num(out, "before", s->before);
        sp_json_num(out, "after", s->after);
        sp_json_num(out, "ratio", s->r.ratio);
        sp_json_num(out, "ci_lo", s->r.lo);
        sp_json_num(out, "ci_hi", s->r.hi);
        sp_json_num(out, "p", s->p);
        fprintf(out, ", \"test\": \"%s\", \"candidates\": %zu", test_name(s->method),
                s->candidates);
        sp_json_num(out, "permutation_floor", s->floor);
        sp_json_num(out, "busbw_before_gbps", s->bw_before);
        sp_json_num(out, "busbw_after_gbps", s->bw_after);
        fprintf(out, ", \"direction\": \"%s\"}", direction(s));
    }
    fprintf(out, "\n ],\n \"what_changed\": [");
    print_what_changed(runs, order, nruns, f, 1, out);
    fprintf(out, "\n ],\n \"outliers\": [");
    for (size_t i = 0; i < f->noutliers; i++) {
        const outlier_t *ot = &f->outliers[i];
        fprintf(out, "%s\n  {\"metric\": ", i ? "," : "");
        sp_json_str(out, ot->metric->label);
        fprintf(out, ", \"unit\": ");
        sp_json_str(out, ot->metric->unit);
        fprintf(out, ", \"run\": %zu, \"path\": ", ot->run);
        sp_json_str(out, runs[order[ot->run]].path);
        sp_json_num(out, "value", ot->value);
        sp_json_num(out, "neighbours", ot->neighbours);
        sp_json_num(out, "z", ot->z);
        fprintf(out, "}");
    }
    fprintf(out, "\n ],\n \"summary\": {\"metrics\": %zu, \"shifts\": %zu, \"outliers\": %zu}}\n",
            f->analyzed, f->nshifts, f->noutliers);
}

/* The rules in force for a series of nruns runs (docs/METHODOLOGY.md). */
static void print_method_text(const sp_cp_opts_t *o, size_t nruns, double threshold, FILE *out)
{
    double fl = sp_cp_perm_floor(o, nruns);

    fprintf(out,
            "# per metric one value per run; outliers: robust z > %g against the 4 nearest "
            "runs; shifts: at least %zu runs each side,\n# p < %g, |after/before - 1| > %.1f%%, "
            "a metric's first test Benjamini-Hochberg across the %zu metrics at the same level\n",
            o->outlier_z, o->min_segment, o->alpha, 100.0 * threshold, o->nseries);
    if (sp_cp_method_for(o, nruns) == SP_CP_TSCAN) {
        fprintf(out,
                "# test: t scan on the log values (largest |t| over the split points, p times "
                "their number); a permutation test\n# of %zu runs cannot go below p = %.3g, "
                "above alpha / (4 x %zu metrics)\n",
                nruns, fl, o->nseries);
    } else {
        fprintf(out,
                "# test: E-divisive (energy, alpha 1) with %d to %d permutations of blocks of %zu "
                "run(s)"
                "; permutation floor %.3g\n",
                o->permutations, o->max_permutations, sp_cp_block_len(o, nruns), fl);
    }
}

static void print_text(const run_t *runs, const size_t *order, size_t nruns, const sp_cp_opts_t *o,
                       double threshold, int by_time, const findings_t *f, FILE *out)
{
    fprintf(out, "# regress: %zu runs of '%s', %s\n", nruns, runs[order[0]].kind,
            by_time ? "ordered by creation time" : "in the order given");
    for (size_t k = 0; k < nruns; k++) {
        fprintf(out, "#   run %zu: %s (%s)\n", k, runs[order[k]].path,
                runs[order[k]].created[0] ? runs[order[k]].created : "no creation time");
    }
    print_method_text(o, nruns, threshold, out);
    fprintf(out, "# Shifts: first run after the shift; medians of the runs before and after; "
                 "ratio after/before of geometric means with\n# its Welch t interval, "
                 "simultaneous over the candidate splits (the ratio itself is biased away from 1 "
                 "by the choice of split)\n");
    fprintf(out, "%-40s %4s %12s %12s %5s %8s %18s %7s %-6s %-9s %s\n", "metric", "run", "before",
            "after", "unit", "ratio", "95% CI", "p", "test", "direction", "file");
    for (size_t i = 0; i < f->nshifts; i++) {
        const shift_t *s = &f->shifts[i];
        char ci[40] = "n/a", ratio[24] = "n/a";
        if (isfinite(s->r.lo)) {
            snprintf(ci, sizeof(ci), "[%.3f, %.3f]", s->r.lo, s->r.hi);
        }
        if (isfinite(s->r.ratio)) {
            snprintf(ratio, sizeof(ratio), "%.3f", s->r.ratio);
        }
        fprintf(out, "%-40s %4zu %12.4g %12.4g %5s %8s %18s %7.4f %-6s %-9s %s\n", s->metric->label,
                s->run, s->before, s->after, s->metric->unit, ratio, ci, s->p, test_name(s->method),
                direction(s), runs[order[s->run]].path);
    }
    if (f->nshifts == 0) {
        fprintf(out, "# (none)\n");
    }
    print_what_changed(runs, order, nruns, f, 0, out);
    fprintf(out, "# Outliers: one-off runs, replaced by their neighbours' level before the shift "
                 "search\n");
    fprintf(out, "%-40s %4s %12s %12s %5s %7s %s\n", "metric", "run", "value", "neighbours", "unit",
            "z", "file");
    for (size_t i = 0; i < f->noutliers; i++) {
        const outlier_t *ot = &f->outliers[i];
        fprintf(out, "%-40s %4zu %12.4g %12.4g %5s %7.1f %s\n", ot->metric->label, ot->run,
                ot->value, ot->neighbours, ot->metric->unit, ot->z, runs[order[ot->run]].path);
    }
    if (f->noutliers == 0) {
        fprintf(out, "# (none)\n");
    }
    fprintf(out, "# %zu metrics, %zu shifts, %zu outliers\n", f->analyzed, f->nshifts,
            f->noutliers);
}

/* ---- command ---- */

static const char usage_hint[] = "usage: scaleprobe regress FILE FILE FILE... [options]";

typedef struct {
    sp_opt_args_t files;
    int json;
    int by_time;
    double threshold_pct;
    double alpha;
    long min_segment;
} regress_opts_t;

#define OFF(field) offsetof(regress_opts_t, field)

static const sp_opt_def_t regress_defs[] = {
    {"files", 0, SP_OPT_ARGS, OFF(files), NULL, "FILE",
     "result files of one cluster and one command, oldest first (at least 3)", 3, -1, NULL, 0},
    {"json", 0, SP_OPT_FLAG, OFF(json), NULL, NULL, "the findings as JSON", 0, -1, NULL, 0},
    {"threshold", 0, SP_OPT_DOUBLE, OFF(threshold_pct), "3", "PCT",
     "smallest shift that counts, percent in [0, 100)", 0, -1, NULL, 0},
    {"alpha", 0, SP_OPT_DOUBLE, OFF(alpha), "0.05", "A",
     "significance level of the change-point tests, in (0, 1)", 0, -1, NULL, 0},
    {"sort-by-time", 0, SP_OPT_FLAG, OFF(by_time), NULL, NULL,
     "order the files by their 'created' attribute instead of the command line", 0, -1, NULL, 0},
    {"min-segment", 0, SP_OPT_INT, OFF(min_segment), "3", "N",
     "fewest runs between two change points (at least 2)", 2, 1e6, NULL, 0},
};

static const sp_opt_table_t regress_table = {
    .command = "regress",
    .summary = "Change points over a series of result files of one cluster (e.g. nightly runs, "
               "oldest first):\nper metric one value per run, one-off outliers set apart, shifts "
               "(p < alpha) larger than the\nthreshold: a t scan over the split points where a "
               "permutation test cannot reach alpha\n(short series), else E-divisive with block "
               "permutations; what changed at each shift.\nNeeds 6 runs, 3 each side of a "
               "change. Exit 0: no shift; 1: a shift; 2: bad input.",
    .defs = regress_defs,
    .ndefs = (int)(sizeof(regress_defs) / sizeof(regress_defs[0])),
};

static int bad(const char *msg)
{
    sp_launcher_error("regress", msg);
    return 2;
}

/* Parse and check argv into ro (ro->files.v: caller storage of argc entries) and o. 0 to go on,
 * else the exit code (-1: --help shown). */
static int parse(int argc, char **argv, regress_opts_t *ro, sp_cp_opts_t *o)
{
    char msg[512];
    int help = 0;

    if (sp_opts_parse(&regress_table, argc, argv, 2, ro, &help, NULL, msg, sizeof(msg)) != SP_OK) {
        return bad(msg);
    }
    if (help) {
        sp_opts_help(&regress_table, stdout);
        return -1;
    }
    if (!(ro->threshold_pct >= 0.0 && ro->threshold_pct < 100.0)) {
        return bad("--threshold takes a percentage in [0, 100)");
    }
    if (!(ro->alpha > 0.0 && ro->alpha < 1.0)) {
        return bad("--alpha takes a significance level in (0, 1)");
    }
    if (ro->files.n < MIN_RUNS) {
        snprintf(msg, sizeof(msg), "needs at least %d result files, got %d (%s)", MIN_RUNS,
                 ro->files.n, usage_hint);
        return bad(msg);
    }
    o->alpha = ro->alpha;
    o->min_segment = (size_t)ro->min_segment;
    return 0;
}

/* Open every file, check they are of one kind and gather the metrics. 0, or 2 after one
 * message. */
static int load(char **files, size_t nfiles, run_t *runs, metric_list_t *l)
{
    for (size_t i = 0; i < nfiles; i++) {
        sp_reader_t rd;
        char msg[8400];
        if (sp_reader_open_for("regress", files[i], &rd) != SP_OK) {
            return 2;
        }
        if (rd.proxy_predicted || rd.has_node) {
            snprintf(msg, sizeof(msg), "%s: %s", files[i],
                     rd.has_node ? "a `scaleprobe node` result: regress takes sweeps or proxy runs"
                                 : "a prediction, not a measured run (compare it with a run: "
                                   "scaleprobe compare PREDICTED MEASURED)");
            sp_reader_close(&rd);
            return bad(msg);
        }
        snprintf(runs[i].path, sizeof(runs[i].path), "%s", files[i]);
        snprintf(runs[i].created, sizeof(runs[i].created), "%s", rd.created);
        snprintf(runs[i].kind, sizeof(runs[i].kind), "%s",
                 rd.has_proxy ? "proxy" : (rd.subcommand[0] ? rd.subcommand : "coll"));
        if (i > 0 && strcmp(runs[i].kind, runs[0].kind) != 0) {
            sp_reader_close(&rd);
            snprintf(msg, sizeof(msg),
                     "files of different kinds: %s is a '%s' result, %s a '%s' result (a series "
                     "must come from one command)",
                     runs[0].path, runs[0].kind, runs[i].path, runs[i].kind);
            return bad(msg);
        }
        if (sp__regress_add_run(l, &rd, i) != 0) {
            snprintf(msg, sizeof(msg),
                     "%s: out of memory, or its sweep samples (/coll/samples) cannot be read",
                     runs[i].path);
            sp_reader_close(&rd);
            return bad(msg);
        }
        sp_reader_close(&rd);
    }
    return 0;
}

/* Every metric's change points and outliers, then the findings printed. 0 or 1 (a shift), 2
 * after one message. */
static int analyze(const regress_opts_t *ro, const sp_cp_opts_t *base, run_t *runs, size_t *order,
                   metric_list_t *l, findings_t *f)
{
    sp_cp_opts_t o = *base;
    size_t nfiles = (size_t)ro->files.n;
    double threshold = ro->threshold_pct / 100.0;

    /* stable insertion sort: runs created in the same second keep the command line's order */
    for (size_t k = 0; k < nfiles; k++) {
        size_t j = k;
        order[k] = k;
        while (ro->by_time && j > 0 && strcmp(runs[order[j - 1]].created, runs[k].created) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
    f->metric_p = malloc((l->n + 1) * sizeof(*f->metric_p));
    f->metric_perms = calloc(l->n + 1, sizeof(*f->metric_perms));
    if (f->metric_p == NULL || f->metric_perms == NULL) {
        return bad("out of memory");
    }
    o.nseries = 0;
    for (size_t i = 0; i < l->n; i++) {
        size_t have = 0;
        for (size_t k = 0; k < nfiles; k++) {
            have += isfinite(l->m[i].value[k]) != 0;
        }
        o.nseries += have >= MIN_RUNS;
    }
    for (size_t i = 0; i < l->n; i++) {
        f->metric_p[i] = NAN;
        if (analyze_metric(&l->m[i], i, order, nfiles, &o, threshold, f) != 0) {
            return bad("out of memory");
        }
    }
    if (refine_at_floor(f, l, order, nfiles, &o, threshold) != 0 ||
        fdr_over_metrics(f, l, o.alpha) != 0) {
        return bad("out of memory");
    }
    if (ro->json) {
        print_json(runs, order, nfiles, &o, threshold, ro->by_time, f, stdout);
    } else {
        print_text(runs, order, nfiles, &o, threshold, ro->by_time, f, stdout);
    }
    return f->nshifts > 0 ? 1 : 0;
}

int sp_regress_main(int argc, char **argv)
{
    regress_opts_t ro;
    char **files = calloc((size_t)argc + 1, sizeof(*files));
    size_t nfiles, *order = NULL;
    int rc = 2;
    sp_cp_opts_t o;
    run_t *runs = NULL;
    metric_list_t l = {NULL, 0, 0, 0};
    findings_t f;

    memset(&f, 0, sizeof(f));
    memset(&ro, 0, sizeof(ro));
    sp_cp_opts_default(&o);
    if (files == NULL) {
        return bad("out of memory");
    }
    ro.files.v = files;
    ro.files.cap = argc;
    rc = parse(argc, argv, &ro, &o);
    if (rc != 0) {
        free(files);
        return rc < 0 ? 0 : rc;
    }
    rc = 2;
    nfiles = (size_t)ro.files.n;
    runs = calloc(nfiles, sizeof(*runs));
    order = malloc(nfiles * sizeof(*order));
    l.nfiles = nfiles;
    if (runs == NULL || order == NULL) {
        rc = bad("out of memory");
        goto out;
    }
    if (load(files, nfiles, runs, &l) != 0) {
        goto out;
    }
    rc = analyze(&ro, &o, runs, order, &l, &f);
out:
    free(f.shifts);
    free(f.outliers);
    free(f.metric_p);
    free(f.metric_perms);
    sp__regress_metrics_free(&l);
    free(order);
    free(runs);
    free(files);
    return rc;
}
