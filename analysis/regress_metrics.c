/* regress: gathering the per-run metrics of a series (see regress_metrics.h). */
#include "regress_metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define N_PROXY_METRICS 7

/* The metric with this label (sweep: this key), added when new. NULL when out of memory. */
static metric_t *metric_get(metric_list_t *l, const char *label, const sp_coll_row_t *key,
                            const char *unit)
{
    metric_t *m;

    for (size_t i = 0; i < l->n; i++) {
        if (key != NULL ? l->m[i].is_sweep && sp_reader_same_point(&l->m[i].key, key)
                        : !l->m[i].is_sweep && strcmp(l->m[i].label, label) == 0) {
            return &l->m[i];
        }
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 32;
        metric_t *p = realloc(l->m, cap * sizeof(*p));
        if (p == NULL) {
            return NULL;
        }
        l->m = p;
        l->cap = cap;
    }
    m = &l->m[l->n];
    memset(m, 0, sizeof(*m));
    snprintf(m->label, sizeof(m->label), "%s", label);
    m->unit = unit;
    m->is_sweep = key != NULL;
    if (key != NULL) {
        m->key = *key;
    }
    m->value = malloc(l->nfiles * sizeof(*m->value));
    m->busbw = malloc(l->nfiles * sizeof(*m->busbw));
    if (m->value == NULL || m->busbw == NULL) {
        free(m->value);
        free(m->busbw);
        return NULL;
    }
    for (size_t i = 0; i < l->nfiles; i++) {
        m->value[i] = NAN;
        m->busbw[i] = NAN;
    }
    l->n++;
    return m;
}

/* The proxy's per-run values: the median over measured steps of the step time, and of the mean
 * over ranks of compute time, bubble fraction and exposed communication (all, per lane). */
static const struct {
    const char *label;
    const char *unit;
    size_t offset;
} proxy_metrics[N_PROXY_METRICS] = {
    {"proxy step time", "ms", offsetof(sp_proxy_rank_row_t, step_ms)},
    {"proxy compute per rank", "ms", offsetof(sp_proxy_rank_row_t, busy_ms)},
    {"proxy bubble fraction", "", offsetof(sp_proxy_rank_row_t, bubble_frac)},
    {"proxy exposed comm", "ms", offsetof(sp_proxy_rank_row_t, exposed_ms)},
    {"proxy exposed dp comm", "ms", offsetof(sp_proxy_rank_row_t, dp_exposed_ms)},
    {"proxy exposed tp comm", "ms", offsetof(sp_proxy_rank_row_t, tp_exposed_ms)},
    {"proxy exposed pp comm", "ms", offsetof(sp_proxy_rank_row_t, pp_exposed_ms)},
};

/* Median over steps of the per-step mean over ranks of one field (NaN when there is none). */
static double proxy_run_value(const sp_reader_t *rd, size_t offset)
{
    double *per_step = NULL, v;
    size_t steps = 0, k = 0;

    if (sp_reader_proxy_steps(rd, offset, &per_step, &steps) != SP_OK || steps == 0) {
        return NAN;
    }
    for (size_t s = 0; s < steps; s++) {
        if (!isnan(per_step[s])) {
            per_step[k++] = per_step[s];
        }
    }
    v = k > 0 ? sp_stats_median(per_step, k, per_step) : NAN;
    free(per_step);
    return v;
}

/* Add file `run`'s values to the metric list. 0 on success, -1 out of memory. */
int sp__regress_add_run(metric_list_t *l, const sp_reader_t *rd, size_t run)
{
    if (rd->has_proxy) {
        for (int k = 0; k < N_PROXY_METRICS; k++) {
            metric_t *m = metric_get(l, proxy_metrics[k].label, NULL, proxy_metrics[k].unit);
            if (m == NULL) {
                return -1;
            }
            m->value[run] = proxy_run_value(rd, proxy_metrics[k].offset);
        }
        return 0;
    }
    for (size_t i = 0; i < rd->nrows; i++) {
        char label[128];
        metric_t *m;
        if (sp_reader_point_cycle(rd, i) > 0) {
            continue; /* a later cycle's row: pooled with the first */
        }
        sp_reader_point_label(&rd->rows[i], label, sizeof(label));
        m = metric_get(l, label, &rd->rows[i], "us");
        /* time_us, the median of the point's samples; with -N cycles every cycle's pooled */
        if (m == NULL ||
            sp_reader_point_value(rd, i, &m->value[run], &m->busbw[run]) != SP_OK) {
            return -1;
        }
    }
    return 0;
}

void sp__regress_metrics_free(metric_list_t *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->m[i].value);
        free(l->m[i].busbw);
    }
    free(l->m);
}
