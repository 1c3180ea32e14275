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

/* Compare one label over the runs of shape ga (side A) and gb (side B). With one run per side
 * the samples are bootstrapped; with more, each run's median is one observation (Student t over
 * runs), so the interval carries the spread between runs. 0 when the point cannot be compared. */
static int compare_label(const char *label, const shape_t *ga, const shape_t *gb, point_t *pt)
{
    double *ma = calloc(ga->n + 1, sizeof(double)), *mb = calloc(gb->n + 1, sizeof(double));
    int ok = ma != NULL && mb != NULL;

    memset(pt, 0, sizeof(*pt));
    snprintf(pt->label, sizeof(pt->label), "%s", label);
    pt->world = ga->world;
    pt->nodes = ga->nodes;
    for (int side = 0; ok && side < 2; side++) {
        const shape_t *g = side ? gb : ga;
        for (size_t i = 0; ok && i < g->n; i++) {
            const metric_t *m = sp__cmp_find_metric(&g->runs[i]->ms, label);
            ok = m != NULL && m->comparable;
            if (ok) {
                (side ? mb : ma)[i] = sp__cmp_median_of(m->v, m->n);
            }
        }
    }
    if (ok && ga->n == 1 && gb->n == 1) {
        const metric_t *x = sp__cmp_find_metric(&ga->runs[0]->ms, label);
        const metric_t *y = sp__cmp_find_metric(&gb->runs[0]->ms, label);
        ok = sp_ab_ratio(x->v, x->n, y->v, y->n, SP_CMP_BOOT_ITERS, 0.95, SP_CMP_BOOT_SEED, &pt->r) == SP_OK;
    } else if (ok) {
        ok = sp_ab_runs_ratio(ma, ga->n, mb, gb->n, 0.95, &pt->r) == SP_OK;
    }
    if (ok && ga->n == 1 && gb->n == 1) {
        pt->a_us = ma[0];
        pt->b_us = mb[0];
    } else if (ok) { /* geometric means of the run medians: their ratio is the one shown */
        pt->a_us = pt->b_us = 0.0;
        for (size_t i = 0; i < ga->n; i++) {
            pt->a_us += log(ma[i]) / (double)ga->n;
        }
        for (size_t i = 0; i < gb->n; i++) {
            pt->b_us += log(mb[i]) / (double)gb->n;
        }
        pt->a_us = exp(pt->a_us);
        pt->b_us = exp(pt->b_us);
    }
    free(ma);
    free(mb);
    return ok;
}

/* Every label of the first run of ga that all runs of both shapes have. */
size_t sp__cmp_compare_shape(const shape_t *ga, const shape_t *gb, point_t *pts, size_t max)
{
    const metrics_t *first = &ga->runs[0]->ms;
    size_t n = 0;

    for (size_t i = 0; i < first->n && n < max; i++) {
        n += (size_t)compare_label(first->m[i].label, ga, gb, &pts[n]);
    }
    return n;
}

int sp__cmp_judge(point_t *pts, size_t n, double threshold, double fdr)
{
    double *p = calloc(n + 1, sizeof(*p)); /* zeroed: n may be 0 */
    int slower = 0;

    if (p == NULL) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        p[i] = pts[i].r.p;
    }
    if (sp_ab_bh_adjust(p, n, p) != SP_OK) {
        free(p);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        int signif = p[i] <= fdr;
        pts[i].q = p[i];
        pts[i].verdict = signif && pts[i].r.lo > 1.0 + threshold   ? "slower"
                         : signif && pts[i].r.hi < 1.0 - threshold ? "faster"
                                                                   : "within noise";
        slower += strcmp(pts[i].verdict, "slower") == 0;
    }
    free(p);
    return slower;
}

void sp__cmp_print_table(const point_t *pts, size_t n, FILE *out)
{
    fprintf(out, "%-44s %12s %12s %8s %18s %8s  %s\n", "point", "A (us)", "B (us)", "ratio",
            "95% CI", "q", "verdict");
    for (size_t i = 0; i < n; i++) {
        char ci[40];
        if (pts[0].world != pts[n - 1].world || pts[0].nodes != pts[n - 1].nodes) {
            if (i == 0 || pts[i].world != pts[i - 1].world || pts[i].nodes != pts[i - 1].nodes) {
                fprintf(out, "## %d ranks on %d node%s\n", pts[i].world, pts[i].nodes,
                        pts[i].nodes == 1 ? "" : "s");
            }
        }
        snprintf(ci, sizeof(ci), "[%.3f, %.3f]", pts[i].r.lo, pts[i].r.hi);
        fprintf(out, "%-44s %12.2f %12.2f %8.3f %18s %8.4f  %s\n", pts[i].label, pts[i].a_us,
                pts[i].b_us, pts[i].r.ratio, ci, pts[i].q, pts[i].verdict);
    }
}

/* The points that changed most: up to 3 with a verdict, largest |log ratio| first; the largest
 * change of all when nothing has one. */
void sp__cmp_print_most_changed(const point_t *pts, size_t n, FILE *out)
{
    int shown[3] = {-1, -1, -1};

    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < n; i++) {
            int taken = 0;
            for (int j = 0; j < k; j++) {
                taken |= shown[j] == (int)i;
            }
            if (!taken && strcmp(pts[i].verdict, "within noise") != 0 &&
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
        fprintf(out, ", \"verdict\": \"%s\"}", pts[i].verdict);
    }
}
