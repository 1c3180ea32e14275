/* Result-file reader on plain HDF5 calls: the same compound types the writer uses, read back
 * into the same structs, so the two cannot drift apart. */
#include "reader.h"

#include "launcher.h"

#include <hdf5.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "dtype.h"
#include "log.h"
#include "node_report.h"

sp_status_t sp_reader_read_table(hid_t file, const char *name, hid_t type, size_t row_size,
                              void **rows_p, size_t *n_p)
{
    hid_t ds;
    hid_t space;
    hsize_t dims[1] = {0};
    void *rows = NULL;
    sp_status_t status = SP_OK;

    *rows_p = NULL;
    *n_p = 0;
    if (H5Lexists(file, name, H5P_DEFAULT) <= 0) {
        return SP_OK;
    }
    ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0) {
        return SP_ERR_FORMAT;
    }
    space = H5Dget_space(ds);
    if (H5Sget_simple_extent_ndims(space) != 1) {
        status = SP_ERR_FORMAT;
        goto out;
    }
    H5Sget_simple_extent_dims(space, dims, NULL);
    if (dims[0] > 0) {
        rows = calloc((size_t)dims[0], row_size);
        if (rows == NULL) {
            status = SP_ERR_NOMEM;
            goto out;
        }
        if (H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0) {
            free(rows);
            rows = NULL;
            status = SP_ERR_FORMAT;
            goto out;
        }
    }
    *rows_p = rows;
    *n_p = (size_t)dims[0];
out:
    H5Sclose(space);
    H5Dclose(ds);
    return status;
}

/* "srun, Slurm job 42 (nodes n[1-2], tasks per node 2(x2)), pml ob1 (the same on all 4
 * ranks)" from /launch; "" for files without it. */
static void read_launch(hid_t file, char *out, size_t outlen)
{
    char launcher[64] = "", job[64] = "", nodes[256] = "", tpn[64] = "", pml[64] = "";
    char pml_ranks[128] = "";
    hid_t g;

    out[0] = '\0';
    if (H5Lexists(file, "/launch", H5P_DEFAULT) <= 0 ||
        (g = H5Gopen2(file, "/launch", H5P_DEFAULT)) < 0) {
        return;
    }
    sp__result_read_attr(g, "launcher", launcher, sizeof(launcher));
    sp__result_read_attr(g, "slurm_job_id", job, sizeof(job));
    sp__result_read_attr(g, "slurm_job_nodelist", nodes, sizeof(nodes));
    sp__result_read_attr(g, "slurm_tasks_per_node", tpn, sizeof(tpn));
    sp__result_read_attr(g, "pml", pml, sizeof(pml));
    sp__result_read_attr(g, "pml_ranks", pml_ranks, sizeof(pml_ranks));
    H5Gclose(g);
    if (job[0] != '\0') {
        snprintf(out, outlen, "%s, Slurm job %s (nodes %s, tasks per node %s), pml %s (%s)",
                 launcher, job, nodes[0] ? nodes : "?", tpn[0] ? tpn : "?", pml, pml_ranks);
    } else {
        snprintf(out, outlen, "%s, pml %s (%s)", launcher, pml, pml_ranks);
    }
}

/* /fingerprint/ranks and /fingerprint/nodes. A file without them, or whose rows do not read
 * as today's, has no fingerprint: the rest of the file is still worth reading. */
static void read_fingerprint(hid_t file, sp_reader_t *rd)
{
    hid_t type = sp__result_fp_rank_type();
    void *p = NULL;
    size_t n = 0;
    hid_t ds;

    if (sp_reader_read_table(file, "/fingerprint/ranks", type, sizeof(sp_fp_rank_t), &p, &n) !=
            SP_OK ||
        (int)n != rd->world_size) {
        free(p);
        p = NULL;
        n = 0;
    }
    H5Tclose(type);
    rd->fp = p;
    rd->nfp = n;
    if (n == 0) {
        return;
    }
    type = sp__result_fp_node_type();
    p = NULL;
    if (sp_reader_read_table(file, "/fingerprint/nodes", type, sizeof(sp_fp_node_t), &p, &n) ==
        SP_OK) {
        rd->fp_nodes = p;
        rd->nfp_nodes = n;
    }
    H5Tclose(type);
    ds = H5Dopen2(file, "/fingerprint/nodes", H5P_DEFAULT);
    if (ds >= 0) {
        sp__result_read_attr(ds, "no_majority", rd->fp_ties, sizeof(rd->fp_ties));
        H5Dclose(ds);
    }
}

sp_status_t sp_reader_open(const char *path, sp_reader_t *rd)
{
    hid_t file;
    hid_t type;
    char buf[64];
    size_t nranks = 0;
    void *p = NULL;
    sp_status_t status;

    memset(rd, 0, sizeof(*rd));
    snprintf(rd->path, sizeof(rd->path), "%s", path);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
#if H5_VERSION_GE(1, 12, 0)
    if (H5Fis_accessible(path, H5P_DEFAULT) <= 0) {
#else
    if (H5Fis_hdf5(path) <= 0) {
#endif
        return SP_ERR_FORMAT;
    }
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        return SP_ERR_IO;
    }
    if (sp__result_read_attr(file, "format", buf, sizeof(buf)) != SP_OK ||
        strcmp(buf, "scaleprobe") != 0) {
        H5Fclose(file);
        return SP_ERR_FORMAT;
    }
    sp__result_read_attr(file, "schema_version", buf, sizeof(buf));
    rd->schema_version = strtol(buf, NULL, 10);
    if (rd->schema_version != SP_SCHEMA_VERSION) {
        H5Fclose(file);
        return SP_ERR_FORMAT;
    }
    sp__result_read_attr(file, "created", rd->created, sizeof(rd->created));
    sp__result_read_attr(file, "tool_version", rd->tool_version, sizeof(rd->tool_version));
    sp__result_read_attr(file, "status", rd->status, sizeof(rd->status));
    sp__result_read_attr(file, "command_line", rd->command_line, sizeof(rd->command_line));
    sp__result_read_attr(file, "subcommand", rd->subcommand, sizeof(rd->subcommand));
    sp__result_read_attr(file, "backend", rd->backend, sizeof(rd->backend));
    sp__result_read_attr(file, "world_size", buf, sizeof(buf));
    rd->world_size = (int)strtol(buf, NULL, 10);
    sp__result_read_attr(file, "node_count", buf, sizeof(buf));
    rd->node_count = (int)strtol(buf, NULL, 10);
    read_launch(file, rd->launch, sizeof(rd->launch));
    read_fingerprint(file, rd);

    type = sp__result_topo_type();
    status = sp_reader_read_table(file, "/topology/ranks", type, sizeof(sp_topo_rank_t), &p, &nranks);
    H5Tclose(type);
    rd->ranks = p;
    if (status == SP_OK && (int)nranks != rd->world_size) {
        status = SP_ERR_FORMAT; /* the node map must have one row per rank */
    }
    if (status == SP_OK) {
        type = sp__result_row_type();
        status = sp_reader_read_table(file, "/coll/results", type, sizeof(sp_coll_row_t), &p, &rd->nrows);
        H5Tclose(type);
        rd->rows = p;
    }
    if (status == SP_OK) {
        type = sp__result_wrong_type();
        status = sp_reader_read_table(file, "/coll/wrong", type, sizeof(sp_coll_wrong_t), &p, &rd->nwrong);
        H5Tclose(type);
        rd->wrong = p;
    }
    if (status == SP_OK && H5Lexists(file, "/proxy", H5P_DEFAULT) > 0) {
        hid_t g = H5Gopen2(file, "/proxy", H5P_DEFAULT);
        size_t ninfo = 0;
        type = sp__result_proxy_info_type();
        status = sp_reader_read_table(file, "/proxy/info", type, sizeof(sp_proxy_info_t), &p,
                                      &ninfo);
        H5Tclose(type);
        if (status == SP_OK && ninfo == 1) {
            rd->proxy_info = *(sp_proxy_info_t *)p;
            rd->has_proxy = 1;
        }
        free(p);
        p = NULL;
        if (status == SP_OK) {
            type = sp__result_proxy_rank_type();
            status = sp_reader_read_table(file, "/proxy/ranks", type, sizeof(sp_proxy_rank_row_t),
                                          &p, &rd->nproxy);
            H5Tclose(type);
            rd->proxy = p;
        }
        sp__result_read_attr(g, "schedule", rd->proxy_schedule, sizeof(rd->proxy_schedule));
        sp__result_read_attr(g, "model", rd->proxy_model, sizeof(rd->proxy_model));
        sp__result_read_attr(g, "dp_mode", rd->proxy_dp_mode, sizeof(rd->proxy_dp_mode));
        if (sp__result_read_attr(g, "predicted", buf, sizeof(buf)) == SP_OK) {
            rd->proxy_predicted = strtol(buf, NULL, 10) != 0;
            sp__result_read_attr(g, "predicted_source", rd->proxy_predicted_source,
                                 sizeof(rd->proxy_predicted_source));
        }
        H5Gclose(g);
    }
    if (status == SP_OK) {
        status = sp_node_reader_load(file, rd);
    }
    H5Fclose(file);
    if (status != SP_OK) {
        sp_reader_close(rd);
    }
    return status;
}

void sp_reader_close(sp_reader_t *rd)
{
    free(rd->ranks);
    free(rd->rows);
    free(rd->wrong);
    free(rd->proxy);
    free(rd->fp);
    free(rd->fp_nodes);
    sp_node_reader_free(rd);
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

/* Read count elements from offset of a 1-D or one row of a 2-D dataset. */
static sp_status_t read_slab(const char *path, const char *name, hid_t type, hsize_t row,
                             hsize_t offset, hsize_t count, int two_d, void *out)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t ds;
    hid_t fspace;
    hid_t mspace;
    hsize_t start[2] = {two_d ? row : offset, 0};
    hsize_t cnt[2] = {two_d ? 1 : count, count};
    herr_t rc;

    if (file < 0) {
        return SP_ERR_IO;
    }
    ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0) {
        H5Fclose(file);
        return SP_ERR_FORMAT;
    }
    fspace = H5Dget_space(ds);
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, cnt, NULL);
    mspace = H5Screate_simple(1, &count, NULL);
    rc = H5Dread(ds, type, mspace, fspace, H5P_DEFAULT, out);
    H5Sclose(mspace);
    H5Sclose(fspace);
    H5Dclose(ds);
    H5Fclose(file);
    return rc < 0 ? SP_ERR_FORMAT : SP_OK;
}

sp_status_t sp_reader_samples(const sp_reader_t *rd, size_t i, sp_coll_sample_t **samples_p)
{
    const sp_coll_row_t *row = &rd->rows[i];
    sp_coll_sample_t *s = calloc(row->samples > 0 ? row->samples : 1, sizeof(*s));
    hid_t type = sp__result_sample_type();
    sp_status_t status;

    if (s == NULL) {
        H5Tclose(type);
        return SP_ERR_NOMEM;
    }
    status = row->samples == 0 ? SP_OK
                               : read_slab(rd->path, "/coll/samples", type, 0, row->sample_offset,
                                           row->samples, 0, s);
    H5Tclose(type);
    if (status != SP_OK) {
        free(s);
        return status;
    }
    *samples_p = s;
    return SP_OK;
}

sp_status_t sp_reader_rank_times(const sp_reader_t *rd, size_t i, double **times_p)
{
    double *t = calloc((size_t)rd->world_size, sizeof(*t));
    sp_status_t status;

    if (t == NULL) {
        return SP_ERR_NOMEM;
    }
    status = read_slab(rd->path, "/coll/rank_times", H5T_NATIVE_DOUBLE, i, 0,
                       (hsize_t)rd->world_size, 1, t);
    if (status != SP_OK) {
        free(t);
        return status;
    }
    *times_p = t;
    return SP_OK;
}

sp_status_t sp_reader_open_for(const char *cmd, const char *path, sp_reader_t *rd)
{
    sp_status_t status = sp_reader_open(path, rd);

    if (status != SP_OK) {
        char msg[4200];
        snprintf(msg, sizeof(msg), "%s: %s", path,
                 status == SP_ERR_FORMAT ? "not a scaleprobe result file (or another schema version)"
                 : status == SP_ERR_NOMEM ? "out of memory reading it"
                                          : "cannot be read");
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
