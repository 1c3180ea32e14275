/* compare: one shape's points as B/A ratios with CIs, their verdicts and tables. */
#include "compare_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "stats.h"

double sp__cmp_median_of(const double *v, size_t n)
{
    double *t = malloc((n + 1) * sizeof(*t));
    double m;

    if (t == NULL) {
        return NAN;
    }
    m = sp_stats_median(v, n, t);
    free(t);
    return m;
}

static double log_sd(const double *x, size_t n)
{
    double m = 0.0, ss = 0.0;

    for (size_t i = 0; i < n; i++) {
        m += log(x[i]) / (double)n;
    }
    for (size_t i = 0; i < n; i++) {
        ss += (log(x[i]) - m) * (log(x[i]) - m);
    }
    return n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
}

static double geo_mean(const double *x, size_t n)
{
    double m = 0.0;

    for (size_t i = 0; i < n; i++) {
        m += log(x[i]) / (double)n;
    }
    return exp(m);
}

/* The spread of one run's value for the runs-needed estimate: with repeated runs on a side the
 * spread the runs show (pooled over both sides when both have them); with one run a side the
 * within-run spread (one run's share of the ratio's bootstrap interval, read as a normal one)
 * combined with a run-to-run CV, --run-cv or the documented default. */
static void run_spread(point_t *pt, const double *ma, const double *mb, const cmp_settings_t *cs)
{
    if (pt->has_test) {
        pt->sd_run_log = pt->t.se_log / sqrt(1.0 / (double)pt->na + 1.0 / (double)pt->nb);
        pt->cv_source = CV_OBSERVED;
    } else if (pt->na > 1 || pt->nb > 1) {
        pt->sd_run_log = pt->na > 1 ? log_sd(ma, pt->na) : log_sd(mb, pt->nb);
        pt->cv_source = CV_OBSERVED;
    } else {
        double within = (log(pt->r.hi) - log(pt->r.lo)) / (2.0 * 1.959964);
        double cv = cs->run_cv > 0.0 ? cs->run_cv : SP_CMP_DEFAULT_RUN_CV;
        pt->sd_run_log = sqrt(within * within / 2.0 + cv * cv);
        pt->cv_source = cs->run_cv > 0.0 ? CV_GIVEN : CV_DEFAULT;
    }
    pt->runs_needed = sp_ab_runs_needed(pt->sd_run_log, cs->threshold,
                                        cs->threshold > 0.0 ? 2.0 * cs->threshold : 0.01, cs->fdr,
                                        SP_CMP_POWER, 1000);
}

/* The median of every run of one side's shape at label into m; 0 when a run lacks it. */
static int run_medians(const char *label, const shape_t *g, double *m)
{
    for (size_t i = 0; i < g->n; i++) {
        const metric_t *x = sp__cmp_find_metric(&g->runs[i]->ms, label);
        if (x == NULL || !x->comparable) {
            return 0;
        }
        m[i] = sp__cmp_median_of(x->v, x->n);
    }
    return 1;
}

/* Compare one label over the runs of shape ga (side A) and gb (side B). With repeated runs on
 * both sides each run's median is one observation (minimum-effect and equivalence tests, Welch
 * t over runs); otherwise the ratio and its interval are descriptive: a bootstrap of the samples
 * with one run a side, Student t over runs when one side has more. 0 when the point cannot be
 * compared. */
static int compare_label(const char *label, const shape_t *ga, const shape_t *gb,
                         const cmp_settings_t *cs, point_t *pt)
{
    double *ma = calloc(ga->n + 1, sizeof(double)), *mb = calloc(gb->n + 1, sizeof(double));
    int ok = ma != NULL && mb != NULL;

    memset(pt, 0, sizeof(*pt));
    snprintf(pt->label, sizeof(pt->label), "%s", label);
    pt->world = ga->world;
    pt->nodes = ga->nodes;
    pt->na = ga->n;
    pt->nb = gb->n;
    pt->q = pt->q_equiv = NAN;
    ok = ok && run_medians(label, ga, ma) && run_medians(label, gb, mb);
    if (ok && ga->n >= 2 && gb->n >= 2) {
        ok = sp_ab_min_effect(ma, ga->n, mb, gb->n, cs->threshold, cs->fdr, SP_CMP_POWER, 0.95,
                              &pt->t) == SP_OK;
        pt->has_test = ok;
        pt->r.ratio = pt->t.ratio;
        pt->r.lo = pt->t.lo;
        pt->r.hi = pt->t.hi;
        pt->r.p = pt->t.p_change;
    } else if (ok && ga->n == 1 && gb->n == 1) {
        const metric_t *x = sp__cmp_find_metric(&ga->runs[0]->ms, label);
        const metric_t *y = sp__cmp_find_metric(&gb->runs[0]->ms, label);
        ok = sp_ab_ratio(x->v, x->n, y->v, y->n, SP_CMP_BOOT_ITERS, 0.95, SP_CMP_BOOT_SEED,
                         &pt->r) == SP_OK;
    } else if (ok) {
        ok = sp_ab_runs_ratio(ma, ga->n, mb, gb->n, 0.95, &pt->r) == SP_OK;
    }
    if (ok) {
        /* geometric means of the run medians: their ratio is the one shown (one run: its
         * median) */
        pt->a_us = geo_mean(ma, ga->n);
        pt->b_us = geo_mean(mb, gb->n);
        pt->verdict = "no verdict";
        run_spread(pt, ma, mb, cs);
    }
    free(ma);
    free(mb);
    return ok;
}

/* Every label of the first run of ga that all runs of both shapes have. */
size_t sp__cmp_compare_shape(const shape_t *ga, const shape_t *gb, const cmp_settings_t *cs,
                             point_t *pts, size_t max)
{
    const metrics_t *first = &ga->runs[0]->ms;
    size_t n = 0;

    for (size_t i = 0; i < first->n && n < max; i++) {
        n += (size_t)compare_label(first->m[i].label, ga, gb, cs, &pts[n]);
    }
    return n;
}

sp_status_t sp__cmp_judge(point_t *pts, size_t n, double fdr, verdict_counts_t *counts_p)
{
    sp_ab_mintest_t *t = calloc(n + 1, sizeof(*t));
    sp_ab_verdict_t *v = calloc(n + 1, sizeof(*v));
    double *qc = calloc(2 * n + 1, sizeof(*qc));
    size_t *at = calloc(n + 1, sizeof(*at));
    verdict_counts_t c = {0, 0, 0, 0, 0};
    sp_status_t st = SP_ERR_NOMEM;
    size_t m = 0;

    if (t != NULL && v != NULL && qc != NULL && at != NULL) {
        for (size_t i = 0; i < n; i++) {
            if (pts[i].has_test) {
                at[m] = i;
                t[m++] = pts[i].t;
            }
        }
        st = sp_ab_verdicts(t, m, fdr, qc, qc + n, v);
    }
    for (size_t k = 0; st == SP_OK && k < m; k++) {
        point_t *p = &pts[at[k]];
        p->q = qc[k];
        p->q_equiv = qc[n + k];
        p->verdict = sp_ab_verdict_name(v[k]);
        c.judged++;
        c.slower += v[k] == SP_AB_SLOWER;
        c.faster += v[k] == SP_AB_FASTER;
        c.within += v[k] == SP_AB_WITHIN;
        c.inconclusive += v[k] == SP_AB_INCONCLUSIVE;
    }
    free(t);
    free(v);
    free(qc);
    free(at);
    if (st == SP_OK) {
        *counts_p = c;
    }
    return st;
}

static int cmp_int(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;

    return (a > b) - (a < b);
}

void sp__cmp_runs_suggested(const point_t *pts, size_t n, int *most_p, int *median_p)
{
    int *r = calloc(n + 1, sizeof(*r));
    size_t m = 0;

    *most_p = *median_p = 0;
    for (size_t i = 0; r != NULL && i < n; i++) {
        if (pts[i].runs_needed > 0) {
            r[m++] = pts[i].runs_needed;
        }
    }
    if (m > 0) {
        qsort(r, m, sizeof(*r), cmp_int);
        *most_p = r[m - 1];
        *median_p = r[m / 2];
    }
    free(r);
}

static const char *runs_text(int n, char *buf, size_t size)
{
    if (n > 1000) {
        return ">1000";
    }
    snprintf(buf, size, "%d", n);
    return buf;
}

void sp__cmp_print_table(const point_t *pts, size_t n, FILE *out)
{
    fprintf(out, "%-40s %11s %11s %8s %18s %7s %7s %5s  %s\n", "point", "A (us)", "B (us)", "ratio",
            "95% CI", "q", "MDE %", "runs", "verdict");
    for (size_t i = 0; i < n; i++) {
        char ci[40], q[16] = "-", mde[16] = "-", runs[16];
        if (pts[0].world != pts[n - 1].world || pts[0].nodes != pts[n - 1].nodes) {
            if (i == 0 || pts[i].world != pts[i - 1].world || pts[i].nodes != pts[i - 1].nodes) {
                fprintf(out, "## %d ranks on %d node%s\n", pts[i].world, pts[i].nodes,
                        pts[i].nodes == 1 ? "" : "s");
            }
        }
        snprintf(ci, sizeof(ci), "[%.3f, %.3f]", pts[i].r.lo, pts[i].r.hi);
        if (pts[i].has_test) {
            snprintf(q, sizeof(q), "%.4f", pts[i].q);
            snprintf(mde, sizeof(mde), "%.1f", 100.0 * pts[i].t.mde);
        }
        fprintf(out, "%-40s %11.2f %11.2f %8.3f %18s %7s %7s %5s  %s\n", pts[i].label, pts[i].a_us,
                pts[i].b_us, pts[i].r.ratio, ci, q, mde,
                runs_text(pts[i].runs_needed, runs, sizeof(runs)), pts[i].verdict);
    }
}

/* The points that changed most: up to 3 called slower or faster, largest |log ratio| first; the
 * largest change of all when nothing has one. */
void sp__cmp_print_most_changed(const point_t *pts, size_t n, FILE *out)
{
    int shown[3] = {-1, -1, -1};

    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < n; i++) {
            int taken = 0;
            for (int j = 0; j < k; j++) {
                taken |= shown[j] == (int)i;
            }
            if (!taken &&
                (strcmp(pts[i].verdict, "slower") == 0 || strcmp(pts[i].verdict, "faster") == 0) &&
                (shown[k] < 0 || fabs(log(pts[i].r.ratio)) > fabs(log(pts[shown[k]].r.ratio)))) {
                shown[k] = (int)i;
            }
        }
    }
    if (shown[0] < 0 && n > 0) {
        shown[0] = 0;
        for (size_t i = 1; i < n; i++) {
            if (fabs(log(pts[i].r.ratio)) > fabs(log(pts[shown[0]].r.ratio))) {
                shown[0] = (int)i;
            }
        }
    }
    fprintf(out, "# changed most:\n");
    for (int k = 0; k < 3 && shown[k] >= 0; k++) {
        const point_t *p = &pts[shown[k]];
        fprintf(out, "#   %s (%d ranks): ratio %.3f [%.3f, %.3f], %s\n", p->label, p->world,
                p->r.ratio, p->r.lo, p->r.hi, p->verdict);
    }
}

void sp__cmp_json_points(const point_t *pts, size_t n, FILE *out)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s\n    {\"point\": ", i ? "," : "");
        sp_json_str(out, pts[i].label);
        fprintf(out, ", \"ranks\": %d, \"nodes\": %d", pts[i].world, pts[i].nodes);
        sp_json_num(out, "a_us", pts[i].a_us);
        sp_json_num(out, "b_us", pts[i].b_us);
        sp_json_num(out, "ratio", pts[i].r.ratio);
        sp_json_num(out, "ci_lo", pts[i].r.lo);
        sp_json_num(out, "ci_hi", pts[i].r.hi);
        sp_json_num(out, "p", pts[i].r.p);
        sp_json_num(out, "q", pts[i].q);
        sp_json_num(out, "q_equiv", pts[i].q_equiv);
        sp_json_num(out, "mde_pct", pts[i].has_test ? 100.0 * pts[i].t.mde : NAN);
        fprintf(out, ", \"runs_a\": %zu, \"runs_b\": %zu, \"runs_needed\": %d", pts[i].na,
                pts[i].nb, pts[i].runs_needed);
        fprintf(out, ", \"verdict\": \"%s\"}", pts[i].verdict);
    }
}
