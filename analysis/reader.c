/* The aggregate reader of the offline tools: the runtime's generic half (root attributes,
 * /topology, /fingerprint, /launch) and every workload's half (/coll, /proxy, /node), put
 * together into one sp_reader_t. */
#include "reader.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "dtype.h"
#include "launcher.h"
#include "reader_check.h"
#include "reader_probe.h"
#include "stats.h"

sp_status_t sp_reader_read_table(hid_t file, const char *name, hid_t type, size_t row_size,
                                 void **rows_p, size_t *n_p)
{
    return sp_result_read_table(file, name, type, row_size, rows_p, n_p);
}

/* Root attributes, /launch, /fingerprint and /topology. */
static sp_status_t read_generic(hid_t file, sp_reader_t *rd)
{
    sp_result_root_t root;
    sp_result_fp_t fp;

    sp_result_read_root(file, &root);
    snprintf(rd->created, sizeof(rd->created), "%s", root.created);
    snprintf(rd->tool_version, sizeof(rd->tool_version), "%s", root.tool_version);
    snprintf(rd->status, sizeof(rd->status), "%s", root.status);
    snprintf(rd->command_line, sizeof(rd->command_line), "%s", root.command_line);
    snprintf(rd->subcommand, sizeof(rd->subcommand), "%s", root.subcommand);
    snprintf(rd->backend, sizeof(rd->backend), "%s", root.backend);
    rd->schema_version = root.schema_version;
    rd->world_size = root.world_size;
    rd->node_count = root.node_count;
    sp_result_read_launch(file, rd->launch, sizeof(rd->launch));
    sp_result_read_fingerprint(file, rd->world_size, &fp);
    rd->fp = fp.ranks;
    rd->nfp = fp.nranks;
    rd->fp_nodes = fp.nodes;
    rd->nfp_nodes = fp.nnodes;
    snprintf(rd->fp_ties, sizeof(rd->fp_ties), "%s", fp.ties);
    return sp_result_read_topology(file, rd->world_size, &rd->ranks);
}

static sp_status_t read_proxy(hid_t file, sp_reader_t *rd)
{
    sp_proxy_result_data_t d;
    sp_status_t status = sp_proxy_result_read(file, &d);

    rd->has_proxy = d.has_info;
    rd->proxy_info = d.info;
    rd->proxy = d.rows;
    rd->nproxy = d.nrows;
    snprintf(rd->proxy_schedule, sizeof(rd->proxy_schedule), "%s", d.schedule);
    snprintf(rd->proxy_model, sizeof(rd->proxy_model), "%s", d.model);
    snprintf(rd->proxy_dp_mode, sizeof(rd->proxy_dp_mode), "%s", d.dp_mode);
    rd->proxy_predicted = d.predicted;
    snprintf(rd->proxy_sharing_warning, sizeof(rd->proxy_sharing_warning), "%s",
             d.sharing_warning);
    snprintf(rd->proxy_compute, sizeof(rd->proxy_compute), "%s", d.compute);
    snprintf(rd->proxy_predicted_source, sizeof(rd->proxy_predicted_source), "%s",
             d.predicted_source);
    return status;
}

static sp_status_t read_node(hid_t file, sp_reader_t *rd)
{
    sp_node_result_data_t d;
    sp_status_t status = sp_node_result_read(file, &d);

    rd->has_node = d.present;
    rd->node_rows = d.rows;
    rd->nnode_rows = d.nrows;
    rd->node_burn = d.burn;
    rd->nnode_burn = d.nburn;
    rd->node_outliers = d.outliers;
    rd->nnode_outliers = d.noutliers;
    snprintf(rd->node_blas, sizeof(rd->node_blas), "%s", d.blas);
    snprintf(rd->node_gpu, sizeof(rd->node_gpu), "%s", d.gpu);
    snprintf(rd->node_threshold, sizeof(rd->node_threshold), "%s", d.threshold);
    return status;
}

/* A table that cannot be read makes the file damaged (what the tools report after its path). */
static sp_status_t damaged(sp_reader_t *rd, sp_status_t status, const char *what)
{
    if (status != SP_OK) {
        snprintf(rd->why, sizeof(rd->why), "is a damaged scaleprobe result file: %s %s", what,
                 status == SP_ERR_NOMEM ? "claims more rows than can be held"
                                        : "cannot be read");
    }
    return status == SP_ERR_NOMEM ? SP_ERR_FORMAT : status;
}

sp_status_t sp_reader_open(const char *path, sp_reader_t *rd)
{
    hid_t file;
    sp_status_t status;

    memset(rd, 0, sizeof(*rd));
    snprintf(rd->path, sizeof(rd->path), "%s", path);
    /* the probe first: HDF5 may crash opening a corrupt file too */
    status = sp__reader_probe(path, rd->why, sizeof(rd->why));
    if (status == SP_OK) {
        status = sp_result_read_open_why(path, &file, rd->why, sizeof(rd->why));
    }
    if (status != SP_OK) {
        return status;
    }
    status = damaged(rd, read_generic(file, rd), "/topology/ranks (one row per rank)");
    if (status == SP_OK) {
        status = damaged(rd, sp_coll_result_read(file, &rd->rows, &rd->nrows, &rd->wrong,
                                                 &rd->nwrong),
                         "/coll");
    }
    if (status == SP_OK) {
        status = damaged(rd, sp_coll_groups_read(file, &rd->groups, &rd->ngroups, rd->split,
                                                 sizeof(rd->split)),
                         "/coll/groups");
    }
    if (status == SP_OK) {
        status = sp_coll_result_read_issue(file, rd->issue, sizeof(rd->issue));
        sp_coll_result_read_stream_wait(file, &rd->stream_wait_ns);
    }
    if (status == SP_OK) {
        status = damaged(rd, read_proxy(file, rd), "/proxy");
    }
    if (status == SP_OK) {
        status = damaged(rd, read_node(file, rd), "/node");
    }
    if (status == SP_OK) {
        status = sp__reader_check(file, rd);
    }
    if (status == SP_OK) {
        status = sp_links_result_read(file, &rd->links);
    }
    H5Fclose(file);
    if (status != SP_OK) {
        sp_reader_close(rd);
    }
    return status;
}

void sp_reader_close(sp_reader_t *rd)
{
    sp_node_result_data_t node = {
        .rows = rd->node_rows, .burn = rd->node_burn, .outliers = rd->node_outliers};

    free(rd->ranks);
    free(rd->rows);
    free(rd->wrong);
    free(rd->groups);
    free(rd->proxy);
    free(rd->fp);
    free(rd->fp_nodes);
    sp_node_result_data_free(&node);
    sp_links_result_data_free(&rd->links);
    rd->node_rows = NULL;
    rd->node_burn = NULL;
    rd->node_outliers = NULL;
    rd->nnode_rows = rd->nnode_burn = rd->nnode_outliers = 0;
    rd->has_node = 0;
    rd->fp = NULL;
    rd->fp_nodes = NULL;
    rd->nfp = rd->nfp_nodes = 0;
    rd->proxy = NULL;
    rd->ranks = NULL;
    rd->rows = NULL;
    rd->wrong = NULL;
}

const char *sp_reader_host(const sp_reader_t *rd, int rank)
{
    if (rd->ranks == NULL || rank < 0 || rank >= rd->world_size) {
        return "?";
    }
    return rd->ranks[rank].host;
}

sp_status_t sp_reader_samples(const sp_reader_t *rd, size_t i, sp_coll_sample_t **samples_p)
{
    return sp_coll_result_read_samples(rd->path, &rd->rows[i], samples_p);
}

int sp_reader_same_point(const sp_coll_row_t *x, const sp_coll_row_t *y)
{
    return x->op == y->op && x->dtype == y->dtype && x->redop == y->redop &&
           x->in_place == y->in_place && x->root == y->root && x->bytes == y->bytes;
}

size_t sp_reader_point_cycle(const sp_reader_t *rd, size_t i)
{
    size_t cycle = 0;

    for (size_t j = 0; j < i; j++) {
        cycle += (size_t)sp_reader_same_point(&rd->rows[j], &rd->rows[i]);
    }
    return cycle;
}

size_t sp_reader_point_rows(const sp_reader_t *rd, size_t i)
{
    size_t rows = 0;

    for (size_t j = 0; j < rd->nrows; j++) {
        rows += (size_t)sp_reader_same_point(&rd->rows[j], &rd->rows[i]);
    }
    return rows;
}

/* The figure of a point with several rows (p->v, p->n: their pooled samples; t, bw: each row's
 * time_us and busbw_gbps, nr of them). When every row's time_us is the median of its samples
 * (the default method without -a): the median of the pooled samples, the first row's busbw
 * scaled to it (busbw is 1 / time). Otherwise (-a, the nccl-tests and osu methods report another
 * time): the median of the rows' time_us and of their busbw. tmp: max(p->n, nr) doubles. */
static void pooled_median(sp_reader_pooled_t *p, int samples_are_time, const double *t,
                          const double *bw, size_t nr, double *tmp)
{
    p->median_us = p->busbw_gbps = NAN;
    if (p->n == 0) {
        return;
    }
    if (samples_are_time) {
        p->median_us = sp_stats_median(p->v, p->n, tmp);
        if (t[0] > 0 && p->median_us > 0) {
            p->busbw_gbps = bw[0] * t[0] / p->median_us;
        }
    } else {
        p->median_us = sp_stats_median(t, nr, tmp);
        p->busbw_gbps = sp_stats_median(bw, nr, tmp);
    }
}

sp_status_t sp_reader_point_pooled(const sp_reader_t *rd, size_t i, sp_reader_pooled_t *p)
{
    const sp_coll_row_t *key = &rd->rows[i];
    size_t total = 0, nr = 0;
    int samples_are_time = 1;
    double *tmp, *t, *bw;

    memset(p, 0, sizeof(*p));
    for (size_t j = 0; j < rd->nrows; j++) {
        if (sp_reader_same_point(&rd->rows[j], key)) {
            total += rd->rows[j].samples;
            p->rows++;
        }
    }
    p->v = malloc((total + 1) * sizeof(*p->v));
    tmp = malloc((total + 2 * p->rows + 1) * sizeof(*tmp));
    if (p->v == NULL || tmp == NULL) {
        free(p->v);
        free(tmp);
        p->v = NULL;
        return SP_ERR_NOMEM;
    }
    t = tmp + total + 1; /* the rows' time_us and busbw, after the median's scratch */
    bw = t + p->rows;
    for (size_t j = 0; j < rd->nrows; j++) {
        const sp_coll_row_t *r = &rd->rows[j];
        sp_coll_sample_t *s = NULL;
        size_t start = p->n;
        sp_status_t st;
        if (!sp_reader_same_point(r, key) || r->samples == 0) {
            continue;
        }
        st = sp_reader_samples(rd, j, &s);
        if (st != SP_OK) {
            free(p->v);
            free(tmp);
            p->v = NULL;
            return st;
        }
        for (uint32_t k = 0; k < r->samples; k++) {
            p->v[p->n++] = s[k].time_us;
        }
        free(s);
        t[nr] = r->time_us;
        bw[nr++] = r->busbw_gbps;
        /* is the row's reported time the median of its samples? */
        samples_are_time &= fabs(sp_stats_median(p->v + start, r->samples, tmp) - r->time_us) <=
                            1e-9 * fabs(r->time_us);
    }
    pooled_median(p, samples_are_time, t, bw, nr, tmp);
    free(tmp);
    return SP_OK;
}

sp_status_t sp_reader_point_value(const sp_reader_t *rd, size_t i, double *us, double *busbw)
{
    const sp_coll_row_t *r = &rd->rows[i];
    sp_reader_pooled_t p;
    sp_status_t st;

    if (sp_reader_point_rows(rd, i) == 1) { /* time_us is already the point's figure */
        *us = r->samples > 0 ? r->time_us : NAN;
        *busbw = r->samples > 0 ? r->busbw_gbps : NAN;
        return SP_OK;
    }
    st = sp_reader_point_pooled(rd, i, &p);
    free(p.v);
    *us = st == SP_OK ? p.median_us : NAN;
    *busbw = st == SP_OK ? p.busbw_gbps : NAN;
    return st;
}

sp_status_t sp_reader_rank_times(const sp_reader_t *rd, size_t i, double **times_p)
{
    return sp_coll_result_read_rank_times(rd->path, i, rd->world_size, times_p);
}

sp_status_t sp_reader_open_for(const char *cmd, const char *path, sp_reader_t *rd)
{
    sp_status_t status = sp_reader_open(path, rd);

    if (status != SP_OK) {
        char msg[4400];
        snprintf(msg, sizeof(msg), "%s: %s", path, rd->why[0] ? rd->why : "cannot be read");
        sp_launcher_error(cmd, msg);
    }
    return status;
}

void sp_reader_point_label(const sp_coll_row_t *r, char *out, size_t len)
{
    int has_redop = r->redop >= 0 && r->redop < SP_REDOP_COUNT;
    size_t n;

    snprintf(out, len, "%s %llu B %s%s%s",
             r->op >= 0 && r->op < SP_COLL_COUNT ? sp_coll_names[r->op] : "?",
             (unsigned long long)r->bytes,
             r->dtype >= 0 && r->dtype < SP_DTYPE_COUNT ? sp_dtype_names[r->dtype] : "?",
             has_redop ? " " : "", has_redop ? sp_redop_names[r->redop] : "");
    n = strlen(out);
    if (r->root >= 0 && n < len) {
        snprintf(out + n, len - n, " root %d", (int)r->root);
        n = strlen(out);
    }
    if (r->in_place && n < len) {
        snprintf(out + n, len - n, " in-place");
    }
}

sp_status_t sp_reader_proxy_steps(const sp_reader_t *rd, size_t offset, double **values_p,
                                  size_t *steps_p)
{
    size_t steps = 0;
    double *v, *cnt;

    *values_p = NULL;
    *steps_p = 0;
    for (size_t i = 0; i < rd->nproxy; i++) {
        steps = rd->proxy[i].step >= 0 && (size_t)rd->proxy[i].step + 1 > steps
                    ? (size_t)rd->proxy[i].step + 1
                    : steps;
    }
    /* steps are numbered from 0 and every step has a row per rank, so a step number beyond the
     * rows is damage: never allocate by a number read from the file */
    if (steps > rd->nproxy) {
        return SP_ERR_FORMAT;
    }
    if (steps == 0) {
        return SP_OK;
    }
    v = calloc(steps, sizeof(*v));
    cnt = calloc(steps, sizeof(*cnt));
    if (v == NULL || cnt == NULL) {
        free(v);
        free(cnt);
        return SP_ERR_NOMEM;
    }
    for (size_t i = 0; i < rd->nproxy; i++) {
        double x;
        memcpy(&x, (const char *)&rd->proxy[i] + offset, sizeof(x));
        if (rd->proxy[i].step >= 0 && !isnan(x)) {
            v[rd->proxy[i].step] += x;
            cnt[rd->proxy[i].step] += 1.0;
        }
    }
    for (size_t k = 0; k < steps; k++) {
        v[k] = cnt[k] > 0.0 ? v[k] / cnt[k] : NAN;
    }
    free(cnt);
    *values_p = v;
    *steps_p = steps;
    return SP_OK;
}
