/* The compare command (see compare.h; statistics in abstats.h, docs/METHODOLOGY.md). */
#include "compare.h"

#include <hdf5.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abstats.h"
#include "coll.h"
#include "dtype.h"
#include "fpdiff.h"
#include "json.h"
#include "kv.h"
#include "launcher.h"
#include "node_result.h"
#include "reader.h"
#include "stats.h"

#define BOOT_ITERS 2000
#define BOOT_SEED 20261203u
#define MAX_KV 512

/* ---- what differs ---- */

typedef struct {
    sp_kv_t *kv;
    int n;
} kv_list_t;

static herr_t collect_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    kv_list_t *l = data;
    hid_t a, t;

    (void)info;
    if (l->n >= MAX_KV) {
        return 0;
    }
    a = H5Aopen(loc, name, H5P_DEFAULT);
    if (a < 0) {
        return 0;
    }
    t = H5Aget_type(a);
    snprintf(l->kv[l->n].key, sizeof(l->kv[l->n].key), "%s", name);
    l->kv[l->n].value[0] = '\0';
    if (H5Tget_class(t) == H5T_STRING && !H5Tis_variable_str(t)) {
        size_t sz = H5Tget_size(t);
        char *buf = calloc(1, sz + 1);
        if (buf != NULL && H5Aread(a, t, buf) >= 0) {
            snprintf(l->kv[l->n].value, sizeof(l->kv[l->n].value), "%s", buf);
        }
        free(buf);
    }
    H5Tclose(t);
    H5Aclose(a);
    l->n++;
    return 0;
}

/* The string attributes of group `path` of a file (none when it does not exist). */
static void read_kv(const char *file, const char *path, kv_list_t *l)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t g;

    l->n = 0;
    if (f < 0) {
        return;
    }
    if (H5Lexists(f, path, H5P_DEFAULT) > 0 && (g = H5Gopen2(f, path, H5P_DEFAULT)) >= 0) {
        H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, collect_attr, l);
        H5Gclose(g);
    }
    H5Fclose(f);
}

static const char *kv_get(const kv_list_t *l, const char *key)
{
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->kv[i].key, key) == 0) {
            return l->kv[i].value;
        }
    }
    return NULL;
}

/* Variables the launcher sets anew for every job (ids, ports, session directories), and the
 * options naming the run's output: they differ between any two runs and explain nothing. */
static int volatile_name(const char *k)
{
    static const char *const prefixes[] = {"PMIX_",
                                           "OMPI_MCA_orte_",
                                           "OMPI_MCA_ess_",
                                           "OMPI_COMM_WORLD_",
                                           "OMPI_FILE_LOCATION",
                                           "OMPI_ARGV",
                                           "OMPI_COMMAND",
                                           "OMPI_APP_CTX_",
                                           "OMPI_FIRST_RANKS",
                                           "OMPI_UNIVERSE_SIZE",
                                           "OMPI_NUM_APP_CTX",
                                           "OMPI_MCA_initial_wdir",
                                           "SLURM_JOB_ID",
                                           "SLURM_JOBID",
                                           "SLURM_STEP_ID",
                                           "SLURM_STEPID",
                                           "SLURM_TASK_PID",
                                           "SLURM_PROCID",
                                           "SLURM_LOCALID",
                                           "SLURM_NODEID",
                                           "SLURM_SRUN_COMM_",
                                           "SLURM_LAUNCH_NODE_IPADDR",
                                           "SLURM_JOB_START_TIME",
                                           "SLURM_JOB_END_TIME",
                                           "SLURM_STEP_LAUNCHER_PORT",
                                           "SLURM_TOPOLOGY_ADDR",
                                           /* options that name the run's own output */
                                           "output",
                                           "force"};

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        if (strncmp(k, prefixes[i], strlen(prefixes[i])) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Where differences go: text lines ("#   what key: A x, B y") or JSON objects. */
typedef struct {
    FILE *out;
    int json;
    int n;
} emit_t;

static void emit_diff(emit_t *e, const char *what, const char *key, const char *a, const char *b)
{
    if (e->json) {
        fprintf(e->out, "%s\n    {\"what\": ", e->n ? "," : "");
        sp_json_str(e->out, what);
        fprintf(e->out, ", \"key\": ");
        sp_json_str(e->out, key);
        fprintf(e->out, ", \"a\": ");
        sp_json_str(e->out, a);
        fprintf(e->out, ", \"b\": ");
        sp_json_str(e->out, b);
        fputc('}', e->out);
    } else {
        fprintf(e->out, "#   %s%s%s: A %s, B %s\n", what, key[0] ? " " : "", key, a, b);
    }
    e->n++;
}

/* Emit the keys whose values differ between a and b; first pass NCCL_ and UCX_ names only
 * (communication settings explain the most), second pass the rest. */
static void diff_kv(emit_t *e, const char *what, const kv_list_t *a, const kv_list_t *b,
                    int comm_first, int only_pass)
{
    for (int pass = 0; pass < (comm_first ? 2 : 1); pass++) {
        if (only_pass >= 0 && pass != only_pass) {
            continue;
        }
        for (int side = 0; side < 2; side++) {
            const kv_list_t *x = side ? b : a, *y = side ? a : b;
            for (int i = 0; i < x->n; i++) {
                const char *k = x->kv[i].key;
                const char *other = kv_get(y, k);
                int comm = strncmp(k, "NCCL_", 5) == 0 || strncmp(k, "UCX_", 4) == 0;
                if ((comm_first && comm != (pass == 0)) || volatile_name(k)) {
                    continue;
                }
                if (side == 1 && other != NULL) {
                    continue; /* keys in both were handled from a's side */
                }
                if (other == NULL || strcmp(other, x->kv[i].value) != 0) {
                    const char *mine = x->kv[i].value, *theirs = other ? other : "(unset)";
                    emit_diff(e, what, k, side ? theirs : mine, side ? mine : theirs);
                }
            }
        }
    }
}

/* The majority fingerprints (fpdiff.h) of two files, field by field; node and rank counts are
 * the shape, emitted apart. */
static void emit_fingerprint(const char *pa, const char *pb, emit_t *e)
{
    sp_kv_t *fa = calloc(2 * MAX_KV, sizeof(sp_kv_t));
    sp_fpdiff_t *d = calloc(MAX_KV, sizeof(sp_fpdiff_t));
    int na = 0, nb = 0, nd;

    if (fa != NULL && d != NULL && sp_fpdiff_summary(pa, fa, MAX_KV, &na) == SP_OK &&
        sp_fpdiff_summary(pb, fa + MAX_KV, MAX_KV, &nb) == SP_OK && na > 0 && nb > 0) {
        nd = sp_fpdiff_kv(fa, na, fa + MAX_KV, nb, d, MAX_KV);
        for (int i = 0; i < nd && i < MAX_KV; i++) {
            if (strcmp(d[i].field, "nodes") != 0 && strcmp(d[i].field, "ranks") != 0) {
                emit_diff(e, "fingerprint", d[i].field, d[i].a, d[i].b);
            }
        }
    }
    free(fa);
    free(d);
}

/* What differs between the first runs of the two sides. */
static void emit_differences(const sp_reader_t *a, const sp_reader_t *b, emit_t *e)
{
    kv_list_t ea = {calloc(MAX_KV, sizeof(sp_kv_t)), 0}, eb = {calloc(MAX_KV, sizeof(sp_kv_t)), 0};

    if (ea.kv != NULL && eb.kv != NULL) {
        read_kv(a->path, "/fingerprint/environment", &ea);
        read_kv(b->path, "/fingerprint/environment", &eb);
        diff_kv(e, "environment", &ea, &eb, 1, 0);
        emit_fingerprint(a->path, b->path, e);
        diff_kv(e, "environment", &ea, &eb, 1, 1);
        read_kv(a->path, "/fingerprint", &ea);
        read_kv(b->path, "/fingerprint", &eb);
        diff_kv(e, "version", &ea, &eb, 0, -1);
        read_kv(a->path, "/launch", &ea);
        read_kv(b->path, "/launch", &eb);
        diff_kv(e, "launch", &ea, &eb, 0, -1);
        read_kv(a->path, "/config", &ea);
        read_kv(b->path, "/config", &eb);
        diff_kv(e, "option", &ea, &eb, 0, -1);
    }
    if (a->world_size != b->world_size || a->node_count != b->node_count) {
        char va[64], vb[64];
        snprintf(va, sizeof(va), "%d ranks on %d nodes", a->world_size, a->node_count);
        snprintf(vb, sizeof(vb), "%d ranks on %d nodes", b->world_size, b->node_count);
        emit_diff(e, "shape", "", va, vb);
    }
    if (strcmp(a->backend, b->backend) != 0) {
        emit_diff(e, "backend", "", a->backend, b->backend);
    }
    free(ea.kv);
    free(eb.kv);
}

/* ---- metrics of one file ---- */

/* One measured quantity of a file, keyed by its label: a sweep point's sample times, or one of
 * the proxy's per-step times. Values in microseconds; lower is better. */
typedef struct {
    char label[96];
    double *v;
    size_t n;
    double busbw;   /* sweep points: the file's bus bandwidth (GB/s), NaN otherwise */
    int comparable; /* 2+ positive values: a ratio with a CI can be formed */
} metric_t;

typedef struct {
    metric_t *m;
    size_t n;
} metrics_t;

static void metrics_free(metrics_t *ms)
{
    for (size_t i = 0; ms->m != NULL && i < ms->n; i++) {
        free(ms->m[i].v);
    }
    free(ms->m);
    ms->m = NULL;
    ms->n = 0;
}

/* The proxy's per-step metrics, averaged over ranks: the step time and the components
 * "compare predicted measured" explains a gap with. */
enum { PM_STEP, PM_BUSY, PM_BUBBLE, PM_EXPOSED, PM_TP, PM_PP, PM_DP, PM_COUNT };
static const struct {
    const char *label;
    size_t offset; /* of the ms value in sp_proxy_rank_row_t */
} proxy_metric[PM_COUNT] = {
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
        if (sp_reader_proxy_steps(rd, proxy_metric[k].offset, &m->v, &m->n) != SP_OK) {
            return SP_ERR_NOMEM;
        }
        ms->n++;
        snprintf(m->label, sizeof(m->label), "%s", proxy_metric[k].label);
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

static sp_status_t sweep_metrics(const sp_reader_t *rd, metrics_t *ms)
{
    ms->m = calloc(rd->nrows + 1, sizeof(*ms->m));
    if (ms->m == NULL) {
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < rd->nrows; i++) {
        metric_t *m = &ms->m[ms->n];
        sp_coll_sample_t *s = NULL;
        sp_status_t st = sp_reader_samples(rd, i, &s);
        if (st != SP_OK) {
            return st;
        }
        m->v = malloc((rd->rows[i].samples + 1) * sizeof(*m->v));
        if (m->v == NULL) {
            free(s);
            return SP_ERR_NOMEM;
        }
        for (uint32_t k = 0; k < rd->rows[i].samples; k++) {
            m->v[k] = s[k].time_us;
        }
        free(s);
        m->n = rd->rows[i].samples;
        m->busbw = rd->rows[i].busbw_gbps;
        m->comparable = m->n >= 2;
        sp_reader_point_label(&rd->rows[i], m->label, sizeof(m->label));
        ms->n++;
    }
    return SP_OK;
}

static const metric_t *find_metric(const metrics_t *ms, const char *label)
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
        if (find_metric(ms, label) != NULL) {
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

typedef struct {
    sp_reader_t rd;
    metrics_t ms;
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

static sp_status_t side_open(side_t *sd, const char *name, char **files, size_t n)
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
        if (st != SP_OK) {
            fprintf(stderr, "scaleprobe compare: error: %s: %s\n", files[i],
                    st == SP_ERR_NOMEM ? "out of memory reading its points"
                                       : "its samples cannot be read");
            return st;
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

static void side_close(side_t *sd)
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

static const shape_t *find_shape(const side_t *sd, int world, int nodes)
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
static void workload_difference(const run_t *x, const run_t *y, int same_shape, int common,
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
#define SHAPE_FIELD(f)                                                                             \
    if (p->f != q->f) {                                                                            \
        snprintf(why, size, "different proxy shape (%.400s: " #f " %g, %.400s: " #f " %g)",        \
                 a->path, (double)p->f, b->path, (double)q->f);                                    \
        return;                                                                                    \
    }
        SHAPE_FIELD(pp)
        SHAPE_FIELD(tp) SHAPE_FIELD(microbatches) SHAPE_FIELD(chunks) SHAPE_FIELD(sequence_parallel)
            SHAPE_FIELD(overlap) SHAPE_FIELD(causal) SHAPE_FIELD(layers) SHAPE_FIELD(hidden)
                SHAPE_FIELD(heads) SHAPE_FIELD(ffn) SHAPE_FIELD(seq) SHAPE_FIELD(micro_batch)
                    SHAPE_FIELD(vocab) SHAPE_FIELD(tflops) SHAPE_FIELD(bucket_mib) if (same_shape)
        {
            SHAPE_FIELD(dp)
        }
#undef SHAPE_FIELD
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
            if (find_metric(&w->ms, u->ms.m[i].label) == NULL) {
                snprintf(why, size,
                         "different points (%.400s has %.96s, %.400s has not; --common compares "
                         "the points both have)",
                         u->rd.path, u->ms.m[i].label, w->rd.path);
                return;
            }
        }
    }
}

/* ---- per-point comparison of one shape ---- */

typedef struct {
    char label[96];
    int world, nodes;
    double a_us, b_us; /* one run per side: its median; more: geometric mean of run medians */
    sp_ab_ratio_t r;
    double q;
    const char *verdict;
} point_t;

static double median_of(const double *v, size_t n)
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
            const metric_t *m = find_metric(&g->runs[i]->ms, label);
            ok = m != NULL && m->comparable;
            if (ok) {
                (side ? mb : ma)[i] = median_of(m->v, m->n);
            }
        }
    }
    if (ok && ga->n == 1 && gb->n == 1) {
        const metric_t *x = find_metric(&ga->runs[0]->ms, label);
        const metric_t *y = find_metric(&gb->runs[0]->ms, label);
        ok = sp_ab_ratio(x->v, x->n, y->v, y->n, BOOT_ITERS, 0.95, BOOT_SEED, &pt->r) == SP_OK;
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
static size_t compare_shape(const shape_t *ga, const shape_t *gb, point_t *pts, size_t max)
{
    const metrics_t *first = &ga->runs[0]->ms;
    size_t n = 0;

    for (size_t i = 0; i < first->n && n < max; i++) {
        n += (size_t)compare_label(first->m[i].label, ga, gb, &pts[n]);
    }
    return n;
}

static int judge(point_t *pts, size_t n, double threshold, double fdr)
{
    double *p = malloc((n + 1) * sizeof(*p));
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

static void print_table(const point_t *pts, size_t n, FILE *out)
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
static void print_most_changed(const point_t *pts, size_t n, FILE *out)
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

static void json_points(const point_t *pts, size_t n, FILE *out)
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

/* ---- scaling: a side's shapes side by side ---- */

typedef struct {
    char label[96];
    int world, nodes;
    double value[2]; /* per side: busbw (GB/s) or tokens/s; NaN where the side lacks the shape */
    double eff[2];   /* against the side's smallest shape */
} scale_row_t;

/* The median over a shape's runs of one metric's value: busbw of a sweep point, tokens/s of the
 * proxy (tokens per step over the median step time). */
static double shape_value(const shape_t *g, const char *label, int proxy)
{
    double v[64];
    size_t n = 0;

    for (size_t i = 0; i < g->n && n < 64; i++) {
        const metric_t *m = find_metric(&g->runs[i]->ms, label);
        if (m == NULL) {
            continue;
        }
        v[n++] = proxy ? g->runs[i]->rd.proxy_info.tokens_per_step / (median_of(m->v, m->n) * 1e-6)
                       : m->busbw;
    }
    return n > 0 ? median_of(v, n) : NAN;
}

/* Scaling metrics: the proxy's throughput; for a sweep, every out-of-place point of the largest
 * size (busbw is normalized so that ideal scaling keeps it flat). */
static size_t scaling_rows(const side_t *sides, int nsides, scale_row_t **rows_p)
{
    const run_t *first = &sides[0].runs[0];
    int proxy = first->rd.has_proxy;
    uint64_t largest = 0;
    size_t cap = 0, n = 0;
    scale_row_t *rows = NULL;
    char labels[64][96];
    size_t nl = 0;

    if (proxy) {
        snprintf(labels[nl++], sizeof(labels[0]), "%s", proxy_metric[PM_STEP].label);
    } else {
        for (size_t i = 0; i < first->rd.nrows; i++) {
            largest = first->rd.rows[i].bytes > largest ? first->rd.rows[i].bytes : largest;
        }
        for (size_t i = 0; i < first->rd.nrows && nl < 64; i++) {
            if (first->rd.rows[i].bytes == largest && !first->rd.rows[i].in_place) {
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
        double base[2] = {NAN, NAN};
        int base_world[2] = {0, 0};
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
                    n++;
                }
                rows[r].value[s] = shape_value(sh, labels[l], proxy);
                if (g == 0) {
                    base[s] = rows[r].value[s];
                    base_world[s] = sh->world;
                }
                rows[r].eff[s] =
                    proxy ? rows[r].value[s] / base[s] / ((double)sh->world / (double)base_world[s])
                          : rows[r].value[s] / base[s];
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

static void print_scaling(const scale_row_t *rows, size_t n, int nsides, int proxy, FILE *out)
{
    fprintf(out,
            "# Scaling: %s against node count; efficiency against each side's smallest "
            "shape (%s)\n",
            proxy ? "training throughput (tokens/s)" : "bus bandwidth (GB/s) of the largest size",
            proxy ? "throughput per rank relative to it" : "busbw relative to it; 1 is ideal");
    fprintf(out, "%-44s %6s %6s %12s %6s", "metric", "nodes", "ranks",
            proxy ? "A tok/s" : "A busbw", "eff");
    if (nsides > 1) {
        fprintf(out, " %12s %6s %8s", proxy ? "B tok/s" : "B busbw", "eff", "B/A");
    }
    fputc('\n', out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%-44s %6d %6d %12.4g %6.3f", rows[i].label, rows[i].nodes, rows[i].world,
                rows[i].value[0], rows[i].eff[0]);
        if (nsides > 1) {
            fprintf(out, " %12.4g %6.3f %8.3f", rows[i].value[1], rows[i].eff[1],
                    rows[i].value[1] / rows[i].value[0]);
        }
        fputc('\n', out);
    }
}

static void json_scaling(const scale_row_t *rows, size_t n, FILE *out)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s\n    {\"metric\": ", i ? "," : "");
        sp_json_str(out, rows[i].label);
        fprintf(out, ", \"nodes\": %d, \"ranks\": %d", rows[i].nodes, rows[i].world);
        sp_json_num(out, "a", rows[i].value[0]);
        sp_json_num(out, "a_eff", rows[i].eff[0]);
        sp_json_num(out, "b", rows[i].value[1]);
        sp_json_num(out, "b_eff", rows[i].eff[1]);
        fputc('}', out);
    }
}

/* ---- expected (a prediction) against actual (measured runs) ---- */

typedef struct {
    const char *label;
    double predicted_ms, measured_ms, lo_ms, hi_ms;
} eva_row_t;

/* Per proxy metric: the prediction (mean over its steps) against the median of the measured
 * runs' steps with its distribution-free 95% interval, and the gap measured / predicted - 1. */
static size_t expected_vs_actual(const run_t *pred, const side_t *meas, eva_row_t *rows)
{
    size_t n = 0;

    for (size_t i = 0; i < pred->ms.n; i++) {
        const metric_t *pm = &pred->ms.m[i];
        size_t total = 0, k = 0, l, u;
        double *all, mean = 0.0;
        for (size_t r = 0; r < meas->n; r++) {
            const metric_t *mm = find_metric(&meas->runs[r].ms, pm->label);
            total += mm != NULL ? mm->n : 0;
        }
        all = total > 0 ? malloc(total * sizeof(*all)) : NULL;
        if (all == NULL) {
            continue;
        }
        for (size_t r = 0; r < meas->n; r++) {
            const metric_t *mm = find_metric(&meas->runs[r].ms, pm->label);
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

static void print_eva(const eva_row_t *rows, size_t n, const run_t *pred, size_t nmeas, FILE *out)
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

static void json_eva(const eva_row_t *rows, size_t n, FILE *out)
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

static int all_predicted(const side_t *sd)
{
    for (size_t i = 0; i < sd->n; i++) {
        if (!sd->runs[i].rd.proxy_predicted) {
            return 0;
        }
    }
    return sd->n > 0;
}

/* ---- the command ---- */

static const char usage[] =
    "usage: scaleprobe compare A.h5 B.h5 [--threshold PCT] [--fdr Q] [--common] [--json]\n"
    "       scaleprobe compare A1.h5 [A2.h5 ...] --vs B1.h5 [B2.h5 ...] [options]\n"
    "       scaleprobe compare A_2node.h5 A_4node.h5 ... [--vs B_2node.h5 B_4node.h5 ...]\n";

static int bad_usage(const char *msg)
{
    sp_launcher_error("compare", msg);
    return 2;
}

int sp_compare_main(int argc, char **argv)
{
    char **files[2];
    size_t nfiles[2] = {0, 0};
    double threshold = 0.03, fdr = 0.05;
    int json = 0, common = 0, vs = 0, rc = 2, slower = 0;
    side_t sides[2];
    int nsides;
    point_t *pts = NULL;
    size_t npts = 0, cap = 0;
    char why[2048] = "";

    memset(sides, 0, sizeof(sides));
    files[0] = calloc((size_t)argc, sizeof(char *));
    files[1] = calloc((size_t)argc, sizeof(char *));
    if (files[0] == NULL || files[1] == NULL) {
        free(files[0]);
        free(files[1]);
        return bad_usage("out of memory");
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--common") == 0) {
            common = 1;
        } else if (strcmp(argv[i], "--vs") == 0 && !vs) {
            vs = 1;
        } else if (strcmp(argv[i], "--threshold") == 0 && i + 1 < argc) {
            char *end = NULL;
            threshold = strtod(argv[++i], &end) / 100.0;
            if (end == argv[i] || *end != '\0' || !(threshold >= 0.0 && threshold < 1.0)) {
                rc = bad_usage("--threshold takes a percentage in [0, 100)");
                goto out;
            }
        } else if (strcmp(argv[i], "--fdr") == 0 && i + 1 < argc) {
            char *end = NULL;
            fdr = strtod(argv[++i], &end);
            if (end == argv[i] || *end != '\0' || !(fdr > 0.0 && fdr < 1.0)) {
                rc = bad_usage("--fdr takes a false-discovery rate in (0, 1)");
                goto out;
            }
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("%s"
                   "What differs between two clusters' runs, then every matching point as B/A "
                   "with a 95%% CI\nand a verdict (Benjamini-Hochberg over the points; verdicts "
                   "need q <= --fdr,\ndefault 0.05, and the CI beyond --threshold, default 3%%). "
                   "One run per side: the CI is "
                   "a bootstrap of the samples\n(within-run noise only). Several runs of one "
                   "shape per side (--vs): Student t over\nthe runs' medians, which carries the "
                   "spread between runs. Runs at several node counts:\na scaling table with "
                   "efficiency. --common: compare the points both have.\nExit 0: nothing "
                   "slower; 1: something slower; 2: bad input or not comparable.\n",
                   usage);
            rc = 0;
            goto out;
        } else if (argv[i][0] != '-') {
            files[vs][nfiles[vs]++] = argv[i];
        } else if (strcmp(argv[i], "--threshold") == 0 || strcmp(argv[i], "--fdr") == 0) {
            char msg[128];
            snprintf(msg, sizeof(msg), "%s needs a value (scaleprobe compare --help)", argv[i]);
            rc = bad_usage(msg);
            goto out;
        } else {
            char msg[256];
            snprintf(msg, sizeof(msg), "unknown option '%.64s' (%s)", argv[i],
                     "scaleprobe compare --help");
            rc = bad_usage(msg);
            goto out;
        }
    }
    if (!vs && nfiles[0] == 2) {
        files[1][nfiles[1]++] = files[0][1]; /* A B: the classic pair */
        nfiles[0] = 1;
    }
    if (nfiles[0] == 0 || (vs && nfiles[1] == 0) || (nfiles[1] == 0 && nfiles[0] < 2)) {
        rc = bad_usage("expected two result files, or runs of A --vs runs of B (scaleprobe "
                       "compare --help)");
        goto out;
    }
    nsides = nfiles[1] > 0 ? 2 : 1;
    for (int s = 0; s < nsides; s++) {
        sp_status_t st = side_open(&sides[s], s ? "B" : "A", files[s], nfiles[s]);
        if (st != SP_OK) {
            goto out;
        }
    }
    if (nsides == 1 && sides[0].nshapes == 1) {
        rc = bad_usage("runs of one shape on one side only: say which are B with --vs");
        goto out;
    }
    /* every run against A's first: the same workload (the shape may differ in a series) */
    for (int s = 0; s < nsides && why[0] == '\0'; s++) {
        for (size_t i = 0; i < sides[s].n && why[0] == '\0'; i++) {
            const run_t *x = &sides[0].runs[0], *y = &sides[s].runs[i];
            int same_shape =
                x->rd.world_size == y->rd.world_size && x->rd.node_count == y->rd.node_count;
            workload_difference(x, y, same_shape, common, why, sizeof(why));
        }
    }
    if (why[0] != '\0') {
        fprintf(stderr, "scaleprobe compare: error: not comparable: %s\n", why);
        goto out;
    }
    if (nsides == 2 && all_predicted(&sides[0]) != all_predicted(&sides[1])) {
        int p = all_predicted(&sides[0]) ? 0 : 1;
        eva_row_t rows[PM_COUNT];
        size_t n;
        if (sides[p].n != 1 || sides[1 - p].nshapes != 1 ||
            sides[1 - p].shapes[0].world != sides[p].runs[0].rd.world_size) {
            rc = bad_usage("expected vs actual takes one prediction and measured runs of its "
                           "shape");
            goto out;
        }
        n = expected_vs_actual(&sides[p].runs[0], &sides[1 - p], rows);
        if (json) {
            printf("{\"predicted\": \"%s\", \"expected_vs_actual\": [", p ? "b" : "a");
            json_eva(rows, n, stdout);
            printf("]}\n");
        } else {
            print_eva(rows, n, &sides[p].runs[0], sides[1 - p].n, stdout);
        }
        rc = 0;
        goto out;
    }
    for (size_t g = 0; g < sides[0].nshapes; g++) {
        cap += sides[0].shapes[g].runs[0]->ms.n;
    }
    pts = calloc(cap + 1, sizeof(*pts));
    if (pts == NULL) {
        fprintf(stderr, "scaleprobe compare: error: out of memory\n");
        goto out;
    }
    for (size_t g = 0; nsides == 2 && g < sides[0].nshapes; g++) {
        const shape_t *gb =
            find_shape(&sides[1], sides[0].shapes[g].world, sides[0].shapes[g].nodes);
        if (gb != NULL) {
            npts += compare_shape(&sides[0].shapes[g], gb, pts + npts, cap - npts);
        }
    }
    if (nsides == 2 && npts == 0) {
        fprintf(stderr, "scaleprobe compare: error: not comparable: no point measured in both "
                        "with 2+ samples at the same shape (ranks and nodes)\n");
        goto out;
    }
    slower = judge(pts, npts, threshold, fdr);
    if (slower < 0) {
        fprintf(stderr, "scaleprobe compare: error: out of memory or a p-value that is not a "
                        "number\n");
        goto out;
    }
    {
        int between = nsides == 2 && npts > 0;
        for (size_t g = 0; between && g < sides[0].nshapes; g++) {
            const shape_t *gb =
                find_shape(&sides[1], sides[0].shapes[g].world, sides[0].shapes[g].nodes);
            between = gb == NULL || sides[0].shapes[g].n + gb->n > 2;
        }
        int scaling = sides[0].nshapes > 1 || (nsides == 2 && sides[1].nshapes > 1);
        scale_row_t *srows = NULL;
        size_t nsrows = scaling ? scaling_rows(sides, nsides, &srows) : 0;
        emit_t e = {stdout, json, 0};
        if (json) {
            printf("{\"runs\": {\"a\": %zu, \"b\": %zu}, \"between_runs\": %s, \"threshold\": "
                   "%.6g, \"fdr\": %.6g, \"slower\": %d,\n  \"differences\": [",
                   sides[0].n, sides[1].n, between ? "true" : "false", threshold * 100.0, fdr,
                   slower);
            if (nsides == 2) {
                emit_differences(&sides[0].runs[0].rd, &sides[1].runs[0].rd, &e);
            }
            printf("],\n  \"points\": [");
            json_points(pts, npts, stdout);
            printf("],\n  \"scaling\": [");
            json_scaling(srows, nsrows, stdout);
            printf("]}\n");
        } else {
            if (nsides == 2) {
                printf("# What differs (A: %s, B: %s; communication settings first, per-job ids "
                       "and ports left out)\n",
                       sides[0].runs[0].rd.path, sides[1].runs[0].rd.path);
                emit_differences(&sides[0].runs[0].rd, &sides[1].runs[0].rd, &e);
                if (e.n == 0) {
                    printf("#   nothing recorded differs\n");
                }
            }
            if (npts > 0) {
                printf("# Runs: A %zu, B %zu file(s). Per point: B/A ratio of medians (above 1: B "
                       "slower; over runs, of the\n# geometric means of the runs' medians), 95%% "
                       "CI, Benjamini-Hochberg q; a verdict needs q <= %.2f and "
                       "the CI beyond %.1f%%. %s\n",
                       sides[0].n, sides[1].n, fdr, 100.0 * threshold,
                       between ? "CI from the spread of the runs' medians (Student t over runs)."
                               : "One run per side: the CI is a bootstrap of its samples and "
                                 "does not cover\n# run-to-run variation; repeat runs (A1 A2 A3 "
                                 "--vs B1 B2 B3) to include it.");
                print_table(pts, npts, stdout);
                print_most_changed(pts, npts, stdout);
            }
            if (nsrows > 0) {
                print_scaling(srows, nsrows, nsides, sides[0].runs[0].rd.has_proxy, stdout);
            }
            if (nsides == 2) {
                printf("# %zu points compared: %d slower in B\n", npts, slower);
            }
        }
        free(srows);
    }
    rc = slower > 0 ? 1 : 0;
out:
    free(pts);
    side_close(&sides[0]);
    side_close(&sides[1]);
    free(files[0]);
    free(files[1]);
    return rc;
}
