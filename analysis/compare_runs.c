/* compare: the runs of a side, their metrics (sweep points, proxy steps, node measurements)
 * grouped by shape, and whether two runs measured the same workload. */
#include "compare_internal.h"

#include <hdf5.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kv.h"
#include "reader_probe.h"
#include "node_result.h"

#define SP_CMP_MAX_CONFIG 512



static void metrics_free(metrics_t *ms)
{
    for (size_t i = 0; ms->m != NULL && i < ms->n; i++) {
        free(ms->m[i].v);
    }
    free(ms->m);
    ms->m = NULL;
    ms->n = 0;
}

const sp_cmp_proxy_metric_t sp__cmp_proxy_metric[PM_COUNT] = {
    {"proxy step time", offsetof(sp_proxy_rank_row_t, step_ms)},
    {"proxy compute (busy)", offsetof(sp_proxy_rank_row_t, busy_ms)},
    {"proxy bubble", offsetof(sp_proxy_rank_row_t, bubble_ms)},
    {"proxy exposed comm", offsetof(sp_proxy_rank_row_t, exposed_ms)},
    {"proxy exposed tp comm", offsetof(sp_proxy_rank_row_t, tp_exposed_ms)},
    {"proxy exposed pp comm", offsetof(sp_proxy_rank_row_t, pp_exposed_ms)},
    {"proxy exposed dp comm", offsetof(sp_proxy_rank_row_t, dp_exposed_ms)},
};

static sp_status_t proxy_metrics(const sp_reader_t *rd, metrics_t *ms)
{
    ms->m = calloc(PM_COUNT, sizeof(*ms->m));
    if (ms->m == NULL) {
        return SP_ERR_NOMEM;
    }
    for (int k = 0; k < PM_COUNT; k++) {
        metric_t *m = &ms->m[ms->n];
        int usable = 1;
        if (sp_reader_proxy_steps(rd, sp__cmp_proxy_metric[k].offset, &m->v, &m->n) != SP_OK) {
            return SP_ERR_NOMEM;
        }
        ms->n++;
        snprintf(m->label, sizeof(m->label), "%s", sp__cmp_proxy_metric[k].label);
        m->busbw = NAN;
        for (size_t st = 0; st < m->n; st++) {
            m->v[st] *= 1e3; /* us, as sweep points */
            usable = usable && m->v[st] > 0.0; /* a lane without traffic: no ratio */
        }
        m->comparable = usable && m->n >= 2;
        if (m->n < 1 || !isfinite(m->v[0])) { /* a prediction has one step, zeros allowed */
            free(m->v);
            memset(m, 0, sizeof(*m));
            ms->n--;
        }
    }
    return SP_OK;
}

/* One metric per point: a sweep with -N cycles measured it once a cycle, and its samples of
 * every cycle are pooled (sp_reader_point_pooled; k is the first cycle's). */
static sp_status_t sweep_metrics(const sp_reader_t *rd, metrics_t *ms)
{
    ms->m = calloc(rd->nrows + 1, sizeof(*ms->m));
    if (ms->m == NULL) {
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < rd->nrows; i++) {
        metric_t *m = &ms->m[ms->n];
        sp_reader_pooled_t p;
        sp_status_t st;
        if (sp_reader_point_cycle(rd, i) > 0) {
            continue;
        }
        st = sp_reader_point_pooled(rd, i, &p);
        if (st != SP_OK) {
            return st;
        }
        m->v = p.v;
        m->n = p.n;
        m->busbw = p.busbw_gbps;
        m->batch = rd->rows[i].batch;
        m->comparable = m->n >= 2;
        sp_reader_point_label(&rd->rows[i], m->label, sizeof(m->label));
        ms->n++;
    }
    return SP_OK;
}

const metric_t *sp__cmp_find_metric(const metrics_t *ms, const char *label)
{
    for (size_t i = 0; i < ms->n; i++) {
        if (strcmp(ms->m[i].label, label) == 0) {
            return &ms->m[i];
        }
    }
    return NULL;
}

/* A node file's metrics: per kind (and size), every rank's timed calls pooled, as the call's
 * duration in microseconds, so that above 1 still means B is slower. */
#define NODE_POOL_MAX 20000
static sp_status_t node_metrics(const sp_reader_t *rd, metrics_t *ms)
{
    hid_t file, type;
    sp_node_sample_t *smp = NULL;
    size_t nsmp = 0;
    sp_status_t st;

    ms->m = calloc(rd->nnode_rows + 1, sizeof(*ms->m));
    if (ms->m == NULL) {
        return SP_ERR_NOMEM;
    }
    file = H5Fopen(rd->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        return SP_ERR_IO;
    }
    type = sp__node_sample_type();
    st = sp_reader_read_table(file, "/node/samples", type, sizeof(*smp), (void **)&smp, &nsmp);
    H5Tclose(type);
    H5Fclose(file);
    if (st != SP_OK) {
        return st;
    }
    /* one metric per kind: the rows of a kind share its size */
    for (size_t i = 0; i < rd->nnode_rows; i++) {
        const sp_node_row_t *r = &rd->node_rows[i];
        char label[96];
        metric_t *m;
        if (r->kind < 0 || r->kind >= SP_NODE_KIND_COUNT) {
            continue; /* a kind this version does not know */
        }
        snprintf(label, sizeof(label), "node %s %llu%s", sp_node_kind_names[r->kind],
                 (unsigned long long)r->size, sp_node_kind_is_gemm(r->kind) ? "" : " B");
        if (sp__cmp_find_metric(ms, label) != NULL) {
            continue;
        }
        m = &ms->m[ms->n];
        m->v = malloc((nsmp + 1) * sizeof(*m->v));
        if (m->v == NULL) {
            free(smp);
            return SP_ERR_NOMEM;
        }
        ms->n++;
        snprintf(m->label, sizeof(m->label), "%s", label);
        m->busbw = NAN;
        {
            /* thousands of ranks give millions of calls: every stride-th keeps the bootstrap
             * bounded (at most NODE_POOL_MAX values) and every rank represented */
            size_t total = 0, stride, seen = 0;
            for (size_t k = 0; k < nsmp; k++) {
                total += smp[k].kind == r->kind && smp[k].time_s > 0.0;
            }
            stride = total / NODE_POOL_MAX + 1;
            for (size_t k = 0; k < nsmp; k++) {
                if (smp[k].kind == r->kind && smp[k].time_s > 0.0 && seen++ % stride == 0) {
                    m->v[m->n++] = smp[k].time_s * 1e6;
                }
            }
        }
        m->comparable = m->n >= 2;
    }
    free(smp);
    return SP_OK;
}

/* ---- runs: the files of one side, grouped by shape ---- */

/* The /config attribute method (the sweep's timing method); files without it, written before
 * there was a choice, used the default method. */
static sp_status_t read_method(run_t *r)
{
    sp_kv_t *kv = calloc(SP_CMP_MAX_CONFIG, sizeof(*kv));
    int n;

    if (kv == NULL) {
        return SP_ERR_NOMEM;
    }
    snprintf(r->method, sizeof(r->method), "default");
    /* in a child process: HDF5 crashes iterating some damaged attribute tables */
    n = sp_reader_attrs(r->rd.path, "/config", kv, SP_CMP_MAX_CONFIG);
    if (n < 0) {
        snprintf(r->rd.why, sizeof(r->rd.why), "is a damaged HDF5 file: the HDF5 library "
                 "crashed reading the attributes of /config");
        free(kv);
        return SP_ERR_FORMAT;
    }
    for (int i = 0; i < n; i++) {
        if (strcmp(kv[i].key, "method") == 0 && kv[i].value[0] != '\0') {
            snprintf(r->method, sizeof(r->method), "%s", kv[i].value);
        }
    }
    free(kv);
    return SP_OK;
}

sp_status_t sp__cmp_side_open(side_t *sd, const char *name, char **files, size_t n)
{
    sd->name = name;
    sd->runs = calloc(n, sizeof(*sd->runs));
    sd->shapes = calloc(n, sizeof(*sd->shapes));
    if (sd->runs == NULL || sd->shapes == NULL) {
        fprintf(stderr, "scaleprobe compare: error: out of memory\n");
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        run_t *r = &sd->runs[i];
        sp_status_t st = sp_reader_open_for("compare", files[i], &r->rd);
        if (st != SP_OK) {
            return st;
        }
        sd->n++;
        st = r->rd.has_proxy  ? proxy_metrics(&r->rd, &r->ms)
             : r->rd.has_node ? node_metrics(&r->rd, &r->ms)
                              : sweep_metrics(&r->rd, &r->ms);
        if (st == SP_OK) {
            st = read_method(r);
        }
        if (st != SP_OK) {
            fprintf(stderr, "scaleprobe compare: error: %s: %s\n", files[i],
                    st == SP_ERR_NOMEM ? "out of memory reading its points"
                    : r->rd.why[0] != '\0'
                        ? r->rd.why
                        : "is a damaged scaleprobe result file: its samples cannot be read");
            return st == SP_ERR_NOMEM ? st : SP_ERR_FORMAT;
        }
    }
    for (size_t i = 0; i < n; i++) {
        run_t *r = &sd->runs[i];
        size_t g = 0;
        while (g < sd->nshapes && !(sd->shapes[g].world == r->rd.world_size &&
                                    sd->shapes[g].nodes == r->rd.node_count)) {
            g++;
        }
        if (g == sd->nshapes) {
            size_t at = 0;
            while (at < sd->nshapes && (sd->shapes[at].nodes < r->rd.node_count ||
                                        (sd->shapes[at].nodes == r->rd.node_count &&
                                         sd->shapes[at].world < r->rd.world_size))) {
                at++;
            }
            memmove(&sd->shapes[at + 1], &sd->shapes[at], (sd->nshapes - at) * sizeof(shape_t));
            memset(&sd->shapes[at], 0, sizeof(shape_t));
            sd->shapes[at].world = r->rd.world_size;
            sd->shapes[at].nodes = r->rd.node_count;
            sd->shapes[at].runs = calloc(n, sizeof(run_t *));
            if (sd->shapes[at].runs == NULL) {
                fprintf(stderr, "scaleprobe compare: error: out of memory\n");
                return SP_ERR_NOMEM;
            }
            sd->nshapes++;
            g = at;
        }
        sd->shapes[g].runs[sd->shapes[g].n++] = r;
    }
    return SP_OK;
}

void sp__cmp_side_close(side_t *sd)
{
    for (size_t i = 0; sd->runs != NULL && i < sd->n; i++) {
        metrics_free(&sd->runs[i].ms);
        sp_reader_close(&sd->runs[i].rd);
    }
    for (size_t g = 0; sd->shapes != NULL && g < sd->nshapes; g++) {
        free(sd->shapes[g].runs);
    }
    free(sd->runs);
    free(sd->shapes);
}

const shape_t *sp__cmp_find_shape(const side_t *sd, int world, int nodes)
{
    for (size_t g = 0; g < sd->nshapes; g++) {
        if (sd->shapes[g].world == world && sd->shapes[g].nodes == nodes) {
            return &sd->shapes[g];
        }
    }
    return NULL;
}

/* ---- comparability ---- */

/* The workload a file measured: a prediction is of a proxy step. */
static const char *command_kind(const sp_reader_t *rd)
{
    return rd->has_proxy && rd->proxy_predicted ? "proxy" : rd->subcommand;
}

/* Why two runs' workloads differ ("" when they do not): the command, the proxy's shape (its
 * data-parallel size may differ between shapes of a scaling series), the measured points. */
void sp__cmp_workload_difference(const run_t *x, const run_t *y, int same_shape, int common,
                                char *why, size_t size)
{
    const sp_reader_t *a = &x->rd, *b = &y->rd;

    why[0] = '\0';
    if (strcmp(command_kind(a), command_kind(b)) != 0) {
        snprintf(why, size, "different commands (%.400s: %.32s, %.400s: %.32s)", a->path,
                 a->subcommand, b->path, b->subcommand);
        return;
    }
    if (a->has_proxy) {
        const sp_proxy_info_t *p = &a->proxy_info, *q = &b->proxy_info;
        int gathers = p->dist_opt || q->dist_opt || strcmp(a->proxy_dp_mode, "fsdp") == 0 ||
                      strcmp(b->proxy_dp_mode, "fsdp") == 0;
        /* dp is last: it may differ between shapes of a scaling series */
#define SHAPE_ROW(f) {#f, (double)p->f, (double)q->f}
        const struct {
            const char *name;
            double a, b;
        } shape[] = {SHAPE_ROW(pp),          SHAPE_ROW(tp),     SHAPE_ROW(microbatches),
                     SHAPE_ROW(chunks),      SHAPE_ROW(sequence_parallel),
                     SHAPE_ROW(overlap),     SHAPE_ROW(dist_opt),
                     /* the parameter gathers' overlap matters only where there are gathers */
                     {"overlap_param_gather", gathers ? (double)p->overlap_param_gather : 0.0,
                      gathers ? (double)q->overlap_param_gather : 0.0},
                     SHAPE_ROW(causal),      SHAPE_ROW(layers),
                     SHAPE_ROW(hidden),      SHAPE_ROW(heads),  SHAPE_ROW(ffn),
                     SHAPE_ROW(seq),         SHAPE_ROW(micro_batch), SHAPE_ROW(vocab),
                     SHAPE_ROW(compute),     SHAPE_ROW(compute_threads),
                     /* --compute gemm stores the rate it measured: a result, not the shape */
                     {"tflops", p->tflops,
                      p->compute == 1 && q->compute == 1 ? p->tflops : q->tflops},
                     SHAPE_ROW(bucket_mib),  SHAPE_ROW(dp)};
#undef SHAPE_ROW
        size_t nshape = sizeof(shape) / sizeof(shape[0]) - (same_shape ? 0 : 1);
        for (size_t i = 0; i < nshape; i++) {
            if (shape[i].a != shape[i].b) {
                snprintf(why, size, "different proxy shape (%.400s: %s %g, %.400s: %s %g)",
                         a->path, shape[i].name, shape[i].a, b->path, shape[i].name,
                         shape[i].b);
                return;
            }
        }
        if (strcmp(a->proxy_schedule, b->proxy_schedule) != 0 ||
            strcmp(a->proxy_dp_mode, b->proxy_dp_mode) != 0) {
            snprintf(why, size,
                     "different proxy schedule or data-parallel mode (%.400s: %.32s %.16s, %.400s: "
                     "%.32s %.16s)",
                     a->path, a->proxy_schedule, a->proxy_dp_mode, b->path, b->proxy_schedule,
                     b->proxy_dp_mode);
        }
        return;
    }
    if (common) {
        return;
    }
    for (int side = 0; side < 2; side++) {
        const run_t *u = side ? y : x, *w = side ? x : y;
        for (size_t i = 0; i < u->ms.n; i++) {
            if (sp__cmp_find_metric(&w->ms, u->ms.m[i].label) == NULL) {
                snprintf(why, size,
                         "different points (%.400s has %.96s, %.400s has not; --common compares "
                         "the points both have)",
                         u->rd.path, u->ms.m[i].label, w->rd.path);
                return;
            }
        }
    }
}

void sp__cmp_method_difference(const side_t *sides, int nsides, char *why, size_t size)
{
    const run_t *x = &sides[0].runs[0];

    why[0] = '\0';
    for (int s = 0; s < nsides; s++) {
        for (size_t i = 0; i < sides[s].n; i++) {
            const run_t *y = &sides[s].runs[i];
            if (strcmp(x->method, y->method) != 0) {
                snprintf(why, size,
                         "different timing methods (%.400s: %.64s, %.400s: %.64s); a method's "
                         "numbers are comparable only with the same method's",
                         x->rd.path, x->method, y->rd.path, y->method);
                return;
            }
        }
    }
}

void sp__cmp_batch_difference(const side_t *sides, int nsides, char *why, size_t size)
{
    const run_t *x = &sides[0].runs[0];

    why[0] = '\0';
    for (int s = 0; s < nsides; s++) {
        for (size_t i = 0; i < sides[s].n; i++) {
            const run_t *y = &sides[s].runs[i];
            for (size_t k = 0; k < x->ms.n; k++) {
                const metric_t *m = sp__cmp_find_metric(&y->ms, x->ms.m[k].label);
                if (m != NULL && m->batch != x->ms.m[k].batch) {
                    snprintf(why, size,
                             "runs used different batch sizes k (%.400s: %u, %.400s: %u at "
                             "%.96s): a batch of k operations hides per-operation latency "
                             "differently, so part of a change may be the k",
                             x->rd.path, (unsigned)x->ms.m[k].batch, y->rd.path,
                             (unsigned)m->batch, x->ms.m[k].label);
                    return;
                }
            }
        }
    }
}
