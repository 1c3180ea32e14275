/* compare: scaling over the shapes of each side, and a prediction against measured runs. */
#include "compare_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abstats.h"
#include "json.h"
#include "stats.h"

/* ---- scaling: a side's shapes side by side ---- */


/* A shape's per-run values of one metric (at most 64): busbw of a sweep point, tokens/s of the
 * proxy (tokens per step over the median step time). Returns how many. */
static size_t shape_values(const shape_t *g, const char *label, int proxy, double v[64])
{
    size_t n = 0;

    for (size_t i = 0; i < g->n && n < 64; i++) {
        const metric_t *m = sp__cmp_find_metric(&g->runs[i]->ms, label);
        if (m == NULL) {
            continue;
        }
        v[n++] = proxy ? g->runs[i]->rd.proxy_info.tokens_per_step / (sp__cmp_median_of(m->v, m->n) * 1e-6)
                       : m->busbw;
    }
    return n;
}

/* Row r's efficiency on side s: shape g's value over the base shape's, per rank for the proxy.
 * With at least three runs over the two shapes, the ratio of geometric means with its 95% t
 * interval over runs (the spread between runs is in it); otherwise the ratio of the medians
 * and no interval. */
static void set_efficiency(scale_row_t *row, int s, const shape_t *g, const shape_t *base,
                           const char *label, int proxy)
{
    double vb[64];
    double vg[64];
    size_t nb = shape_values(base, label, proxy, vb);
    size_t ng = shape_values(g, label, proxy, vg);
    double per_rank = proxy ? (double)base->world / (double)g->world : 1.0;
    sp_ab_ratio_t r;

    row->value[s] = ng > 0 ? sp__cmp_median_of(vg, ng) : NAN;
    row->eff_lo[s] = row->eff_hi[s] = NAN;
    if (g == base) {
        row->eff[s] = 1.0;
        return;
    }
    if (nb + ng >= 3 && sp_ab_runs_ratio(vb, nb, vg, ng, 0.95, &r) == SP_OK) {
        row->eff[s] = r.ratio * per_rank;
        row->eff_lo[s] = r.lo * per_rank;
        row->eff_hi[s] = r.hi * per_rank;
        return;
    }
    row->eff[s] = nb > 0 ? row->value[s] / sp__cmp_median_of(vb, nb) * per_rank : NAN;
}

/* Scaling metrics: the proxy's throughput; for a sweep, every out-of-place point of the largest
 * size (busbw is normalized so that ideal scaling keeps it flat). */
size_t sp__cmp_scaling_rows(const side_t *sides, int nsides, scale_row_t **rows_p)
{
    const run_t *first = &sides[0].runs[0];
    int proxy = first->rd.has_proxy;
    uint64_t largest = 0;
    size_t cap = 0, n = 0;
    scale_row_t *rows = NULL;
    char labels[64][96];
    size_t nl = 0;

    if (proxy) {
        snprintf(labels[nl++], sizeof(labels[0]), "%s", sp__cmp_proxy_metric[PM_STEP].label);
    } else {
        for (size_t i = 0; i < first->rd.nrows; i++) {
            largest = first->rd.rows[i].bytes > largest ? first->rd.rows[i].bytes : largest;
        }
        for (size_t i = 0; i < first->rd.nrows && nl < 64; i++) {
            if (first->rd.rows[i].bytes == largest && !first->rd.rows[i].in_place &&
                sp_reader_point_cycle(&first->rd, i) == 0) { /* a -N sweep: once */
                sp_reader_point_label(&first->rd.rows[i], labels[nl++], sizeof(labels[0]));
            }
        }
    }
    for (int s = 0; s < nsides; s++) {
        cap += sides[s].nshapes;
    }
    rows = calloc(cap * nl + 1, sizeof(*rows));
    if (rows == NULL) {
        *rows_p = NULL;
        return 0;
    }
    for (size_t l = 0; l < nl; l++) {
        size_t row0 = n;
        for (int s = 0; s < nsides; s++) {
            for (size_t g = 0; g < sides[s].nshapes; g++) {
                const shape_t *sh = &sides[s].shapes[g];
                size_t r = row0;
                while (r < n && !(rows[r].world == sh->world && rows[r].nodes == sh->nodes)) {
                    r++;
                }
                if (r == n) {
                    snprintf(rows[n].label, sizeof(rows[n].label), "%.95s",
                             proxy ? "proxy tokens/s" : labels[l]);
                    rows[n].world = sh->world;
                    rows[n].nodes = sh->nodes;
                    rows[n].value[0] = rows[n].value[1] = NAN;
                    rows[n].eff[0] = rows[n].eff[1] = NAN;
                    rows[n].eff_lo[0] = rows[n].eff_lo[1] = NAN;
                    rows[n].eff_hi[0] = rows[n].eff_hi[1] = NAN;
                    n++;
                }
                set_efficiency(&rows[r], s, sh, &sides[s].shapes[0], labels[l], proxy);
            }
        }
        /* rows of one label in shape order */
        for (size_t i = row0 + 1; i < n; i++) {
            for (size_t j = i; j > row0 && (rows[j - 1].nodes > rows[j].nodes ||
                                            (rows[j - 1].nodes == rows[j].nodes &&
                                             rows[j - 1].world > rows[j].world));
                 j--) {
                scale_row_t t = rows[j];
                rows[j] = rows[j - 1];
                rows[j - 1] = t;
            }
        }
    }
    *rows_p = rows;
    return n;
}

/* "[lo,hi]" of an efficiency interval, "[-]" without one (one run on both shapes). */
static const char *eff_ci(const scale_row_t *r, int s, char *buf, size_t len)
{
    if (isnan(r->eff_lo[s])) {
        return "[-]";
    }
    snprintf(buf, len, "[%.3f,%.3f]", r->eff_lo[s], r->eff_hi[s]);
    return buf;
}

void sp__cmp_print_scaling(const scale_row_t *rows, size_t n, int nsides, int proxy, FILE *out)
{
    char ci[2][48];

    fprintf(out,
            "# Scaling: %s against node count; efficiency against each side's smallest "
            "shape (%s)\n",
            proxy ? "training throughput (tokens/s)" : "bus bandwidth (GB/s) of the largest size",
            proxy ? "throughput per rank relative to it" : "busbw relative to it; 1 is ideal");
    fprintf(out, "# (eff 95%% CI: Student t over the runs of both shapes on log values; [-] with "
                 "one run on both, where the run-to-run spread is unknown)\n");
    fprintf(out, "%-44s %6s %6s %12s %6s %15s", "metric", "nodes", "ranks",
            proxy ? "A tok/s" : "A busbw", "eff", "eff 95% CI");
    if (nsides > 1) {
        fprintf(out, " %12s %6s %15s %8s", proxy ? "B tok/s" : "B busbw", "eff", "eff 95% CI",
                "B/A");
    }
    fputc('\n', out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%-44s %6d %6d %12.4g %6.3f %15s", rows[i].label, rows[i].nodes,
                rows[i].world, rows[i].value[0], rows[i].eff[0],
                eff_ci(&rows[i], 0, ci[0], sizeof(ci[0])));
        if (nsides > 1) {
            fprintf(out, " %12.4g %6.3f %15s %8.3f", rows[i].value[1], rows[i].eff[1],
                    eff_ci(&rows[i], 1, ci[1], sizeof(ci[1])), rows[i].value[1] / rows[i].value[0]);
        }
        fputc('\n', out);
    }
}

void sp__cmp_json_scaling(const scale_row_t *rows, size_t n, FILE *out)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s\n    {\"metric\": ", i ? "," : "");
        sp_json_str(out, rows[i].label);
        fprintf(out, ", \"nodes\": %d, \"ranks\": %d", rows[i].nodes, rows[i].world);
        sp_json_num(out, "a", rows[i].value[0]);
        sp_json_num(out, "a_eff", rows[i].eff[0]);
        sp_json_num(out, "a_eff_lo", rows[i].eff_lo[0]);
        sp_json_num(out, "a_eff_hi", rows[i].eff_hi[0]);
        sp_json_num(out, "b", rows[i].value[1]);
        sp_json_num(out, "b_eff", rows[i].eff[1]);
        sp_json_num(out, "b_eff_lo", rows[i].eff_lo[1]);
        sp_json_num(out, "b_eff_hi", rows[i].eff_hi[1]);
        fputc('}', out);
    }
}

/* ---- expected (a prediction) against actual (measured runs) ---- */


/* Per proxy metric: the prediction (mean over its steps) against the median of the measured
 * runs' steps with its distribution-free 95% interval, and the gap measured / predicted - 1. */
size_t sp__cmp_expected_vs_actual(const run_t *pred, const side_t *meas, eva_row_t *rows)
{
    size_t n = 0;

    for (size_t i = 0; i < pred->ms.n; i++) {
        const metric_t *pm = &pred->ms.m[i];
        size_t total = 0, k = 0, l, u;
        double *all, mean = 0.0;
        for (size_t r = 0; r < meas->n; r++) {
            const metric_t *mm = sp__cmp_find_metric(&meas->runs[r].ms, pm->label);
            total += mm != NULL ? mm->n : 0;
        }
        all = total > 0 ? malloc(total * sizeof(*all)) : NULL;
        if (all == NULL) {
            continue;
        }
        for (size_t r = 0; r < meas->n; r++) {
            const metric_t *mm = sp__cmp_find_metric(&meas->runs[r].ms, pm->label);
            for (size_t j = 0; mm != NULL && j < mm->n; j++) {
                all[k++] = mm->v[j];
            }
        }
        for (size_t j = 0; j < pm->n; j++) {
            mean += pm->v[j] / (double)pm->n;
        }
        rows[n].label = pm->label;
        rows[n].predicted_ms = mean * 1e-3;
        rows[n].measured_ms = sp_stats_median(all, k, all) * 1e-3; /* sorts all */
        sp_stats_median_ci_ranks(k, 0.95, &l, &u); /* too few steps: the whole range */
        rows[n].lo_ms = all[l - 1] * 1e-3;
        rows[n].hi_ms = all[u - 1] * 1e-3;
        n++;
        free(all);
    }
    return n;
}

static double gap_of(const eva_row_t *r)
{
    return r->predicted_ms > 0.0 ? r->measured_ms / r->predicted_ms - 1.0 : NAN;
}

void sp__cmp_print_eva(const eva_row_t *rows, size_t n, const run_t *pred, size_t nmeas, FILE *out)
{
    fprintf(out,
            "# Expected vs actual: %s predicted (cost model: %s) against %zu measured "
            "run(s); measured = median over steps with its 95%% CI; gap = measured / "
            "predicted - 1\n",
            pred->rd.path, pred->rd.proxy_predicted_source, nmeas);
    fprintf(out, "%-28s %14s %14s %24s %9s\n", "component", "predicted (ms)", "measured (ms)",
            "95% CI (ms)", "gap");
    for (size_t i = 0; i < n; i++) {
        char ci[48], gap[16];
        snprintf(ci, sizeof(ci), "[%.3f, %.3f]", rows[i].lo_ms, rows[i].hi_ms);
        if (isnan(gap_of(&rows[i]))) {
            snprintf(gap, sizeof(gap), "%s", rows[i].measured_ms > 0.0 ? "(none pred.)" : "0");
        } else {
            snprintf(gap, sizeof(gap), "%+.1f%%", 100.0 * gap_of(&rows[i]));
        }
        fprintf(out, "%-28s %14.3f %14.3f %24s %9s\n", rows[i].label + 6 /* "proxy " */,
                rows[i].predicted_ms, rows[i].measured_ms, ci, gap);
    }
}

void sp__cmp_json_eva(const eva_row_t *rows, size_t n, FILE *out)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s\n    {\"component\": ", i ? "," : "");
        sp_json_str(out, rows[i].label);
        sp_json_num(out, "predicted_ms", rows[i].predicted_ms);
        sp_json_num(out, "measured_ms", rows[i].measured_ms);
        sp_json_num(out, "ci_lo_ms", rows[i].lo_ms);
        sp_json_num(out, "ci_hi_ms", rows[i].hi_ms);
        sp_json_num(out, "gap", gap_of(&rows[i]));
        fputc('}', out);
    }
}

int sp__cmp_all_predicted(const side_t *sd)
{
    for (size_t i = 0; i < sd->n; i++) {
        if (!sd->runs[i].rd.proxy_predicted) {
            return 0;
        }
    }
    return sd->n > 0;
}
