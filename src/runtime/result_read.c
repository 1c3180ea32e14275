/* The generic half of reading a result file back: plain HDF5 calls and the same compound types
 * the writer uses (result_types.c), read back into the same structs, so the two cannot drift
 * apart. */
#include "result_read.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "result.h"

sp_status_t sp__result_read_attr(hid_t obj, const char *name, char *out, size_t outlen)
{
    hid_t attr;
    hid_t ftype;
    hid_t mtype;
    size_t size;
    char *tmp;
    sp_status_t status = SP_OK;

    if (H5Aexists(obj, name) <= 0) {
        return SP_ERR_FORMAT;
    }
    attr = H5Aopen(obj, name, H5P_DEFAULT);
    if (attr < 0) {
        return SP_ERR_FORMAT;
    }
    ftype = H5Aget_type(attr);
    if (ftype < 0) {
        H5Aclose(attr);
        return SP_ERR_FORMAT;
    }
    if (H5Tget_class(ftype) != H5T_STRING) {
        /* integers are read through a long long */
        long long v = 0;
        if (H5Aread(attr, H5T_NATIVE_LLONG, &v) < 0) {
            status = SP_ERR_FORMAT;
        }
        snprintf(out, outlen, "%lld", v);
        H5Tclose(ftype);
        H5Aclose(attr);
        return status;
    }
    size = H5Tget_size(ftype);
    mtype = H5Tcopy(H5T_C_S1);
    H5Tset_size(mtype, size + 1);
    tmp = calloc(1, size + 2);
    if (tmp == NULL || H5Aread(attr, mtype, tmp) < 0) {
        status = SP_ERR_FORMAT;
    } else {
        snprintf(out, outlen, "%s", tmp);
    }
    free(tmp);
    H5Tclose(mtype);
    H5Tclose(ftype);
    H5Aclose(attr);
    return status;
}

/* Whether a table of rows x row_size bytes can be held by the file: a damaged extent would
 * otherwise size an allocation (and HDF5 fills missing chunks, touching all of it). Tables are
 * compressed, so the bound is generous: 4096 times the file's size, and at least 64 MiB. */
static int plausible_rows(hid_t obj, hsize_t rows, size_t row_size)
{
    hsize_t file_bytes = 0;
    hid_t file = H5Iget_file_id(obj);
    double bound;

    if (file >= 0) {
        H5Fget_filesize(file, &file_bytes);
        H5Fclose(file);
    }
    bound = 4096.0 * (double)file_bytes;
    bound = bound > 64.0 * 1048576.0 ? bound : 64.0 * 1048576.0;
    return (double)rows * (double)row_size <= bound && rows <= (hsize_t)(SIZE_MAX / row_size);
}

int sp_result_type_fits(hid_t type)
{
    size_t size = H5Tget_size(type);
    int n;

    if (size == 0) {
        return 0;
    }
    if (H5Tget_class(type) != H5T_COMPOUND) {
        return 1;
    }
    n = H5Tget_nmembers(type);
    if (n < 0) {
        return 0;
    }
    for (int i = 0; i < n; i++) {
        size_t off = H5Tget_member_offset(type, (unsigned)i);
        hid_t mt = H5Tget_member_type(type, (unsigned)i);
        size_t msize = mt >= 0 ? H5Tget_size(mt) : 0;
        int fits = mt >= 0 && msize > 0 && off <= size && msize <= size - off &&
                   sp_result_type_fits(mt);
        if (mt >= 0) {
            H5Tclose(mt);
        }
        if (!fits) {
            return 0;
        }
    }
    return 1;
}

sp_status_t sp_result_read_table(hid_t file, const char *name, hid_t type, size_t row_size,
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
    {
        /* a damaged compound type with a member outside its element makes HDF5's conversion
         * copy from far outside the buffer (a crash, found by flipping bits of /node/samples) */
        hid_t ftype = H5Dget_type(ds);
        int fits = ftype >= 0 && sp_result_type_fits(ftype);
        if (ftype >= 0) {
            H5Tclose(ftype);
        }
        if (!fits) {
            status = SP_ERR_FORMAT;
            goto out;
        }
    }
    H5Sget_simple_extent_dims(space, dims, NULL);
    if (dims[0] > 0 && !plausible_rows(file, dims[0], row_size)) {
        status = SP_ERR_FORMAT;
        goto out;
    }
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

/* Why path is no file to read: missing, a directory, empty, unreadable. SP_OK when it is a
 * non-empty regular file this process may read. */
static sp_status_t check_plain_file(const char *path, char *why, size_t len)
{
    struct stat st;

    if (stat(path, &st) != 0) {
        int e = errno;
        snprintf(why, len, "%s%s", e == ENOENT ? "no such file" : "cannot be read: ",
                 e == ENOENT ? "" : strerror(e));
        return SP_ERR_INVALID;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(why, len, "is a directory, not a result file");
        return SP_ERR_INVALID;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, len, "is not a regular file");
        return SP_ERR_INVALID;
    }
    if (st.st_size == 0) {
        snprintf(why, len, "is empty (0 bytes): not a result file");
        return SP_ERR_FORMAT;
    }
    if (access(path, R_OK) != 0) {
        snprintf(why, len, "cannot be read: %s", strerror(errno));
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

/* format and schema_version of an open HDF5 file: this schema, or why not. */
static sp_status_t check_schema(hid_t file, char *why, size_t len)
{
    char buf[64] = "";
    long version;
    char *end;

    if (sp__result_read_attr(file, "format", buf, sizeof(buf)) != SP_OK ||
        strcmp(buf, "scaleprobe") != 0) {
        snprintf(why, len, "is an HDF5 file, but not a scaleprobe result file (no root "
                 "attribute format = scaleprobe)");
        return SP_ERR_FORMAT;
    }
    buf[0] = '\0';
    if (sp__result_read_attr(file, "schema_version", buf, sizeof(buf)) != SP_OK) {
        snprintf(why, len, "is a damaged scaleprobe result file (its schema_version cannot be "
                 "read)");
        return SP_ERR_FORMAT;
    }
    version = strtol(buf, &end, 10);
    if (end == buf || version != SP_SCHEMA_VERSION) {
        snprintf(why, len, "has schema version %.20s, %s than this scaleprobe reads (%d)%s", buf,
                 version > SP_SCHEMA_VERSION ? "newer" : "older", SP_SCHEMA_VERSION,
                 version > SP_SCHEMA_VERSION ? ": read it with a newer scaleprobe" : "");
        return SP_ERR_FORMAT;
    }
    return SP_OK;
}

sp_status_t sp_result_read_open_why(const char *path, hid_t *file_p, char *why, size_t len)
{
    hid_t file;
    sp_status_t status;

    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    status = check_plain_file(path, why, len);
    if (status != SP_OK) {
        return status;
    }
#if H5_VERSION_GE(1, 12, 0)
    if (H5Fis_accessible(path, H5P_DEFAULT) <= 0) {
#else
    if (H5Fis_hdf5(path) <= 0) {
#endif
        snprintf(why, len, "is not an HDF5 file (or its first block is damaged)");
        return SP_ERR_FORMAT;
    }
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        snprintf(why, len, "is a damaged HDF5 file (truncated, or its metadata is corrupt): it "
                 "cannot be opened");
        return SP_ERR_FORMAT;
    }
    status = check_schema(file, why, len);
    if (status != SP_OK) {
        H5Fclose(file);
        return status;
    }
    *file_p = file;
    return SP_OK;
}

sp_status_t sp_result_read_open(const char *path, hid_t *file_p)
{
    char why[256];

    return sp_result_read_open_why(path, file_p, why, sizeof(why));
}

void sp_result_read_root(hid_t file, sp_result_root_t *root)
{
    char buf[64] = "";

    memset(root, 0, sizeof(*root));
    sp__result_read_attr(file, "schema_version", buf, sizeof(buf));
    root->schema_version = strtol(buf, NULL, 10);
    sp__result_read_attr(file, "created", root->created, sizeof(root->created));
    sp__result_read_attr(file, "tool_version", root->tool_version, sizeof(root->tool_version));
    sp__result_read_attr(file, "status", root->status, sizeof(root->status));
    sp__result_read_attr(file, "command_line", root->command_line, sizeof(root->command_line));
    sp__result_read_attr(file, "subcommand", root->subcommand, sizeof(root->subcommand));
    sp__result_read_attr(file, "backend", root->backend, sizeof(root->backend));
    buf[0] = '\0';
    sp__result_read_attr(file, "world_size", buf, sizeof(buf));
    root->world_size = (int)strtol(buf, NULL, 10);
    buf[0] = '\0';
    sp__result_read_attr(file, "node_count", buf, sizeof(buf));
    root->node_count = (int)strtol(buf, NULL, 10);
}

sp_status_t sp_result_read_topology(hid_t file, int world_size, sp_topo_rank_t **ranks_p)
{
    hid_t type = sp__result_topo_type();
    void *p = NULL;
    size_t n = 0;
    sp_status_t status =
        sp_result_read_table(file, "/topology/ranks", type, sizeof(sp_topo_rank_t), &p, &n);

    H5Tclose(type);
    *ranks_p = p;
    if (status == SP_OK && (int)n != world_size) {
        status = SP_ERR_FORMAT; /* the node map must have one row per rank */
    }
    return status;
}

/* A file without /fingerprint/ranks, or whose rows do not read as today's, has no fingerprint:
 * the rest of the file is still worth reading. */
void sp_result_read_fingerprint(hid_t file, int world_size, sp_result_fp_t *fp)
{
    hid_t type = sp__result_fp_rank_type();
    void *p = NULL;
    size_t n = 0;
    hid_t ds;

    memset(fp, 0, sizeof(*fp));
    if (sp_result_read_table(file, "/fingerprint/ranks", type, sizeof(sp_fp_rank_t), &p, &n) !=
            SP_OK ||
        (int)n != world_size) {
        free(p);
        p = NULL;
        n = 0;
    }
    H5Tclose(type);
    fp->ranks = p;
    fp->nranks = n;
    if (n == 0) {
        return;
    }
    type = sp__result_fp_node_type();
    p = NULL;
    if (sp_result_read_table(file, "/fingerprint/nodes", type, sizeof(sp_fp_node_t), &p, &n) ==
        SP_OK) {
        fp->nodes = p;
        fp->nnodes = n;
    }
    H5Tclose(type);
    ds = H5Dopen2(file, "/fingerprint/nodes", H5P_DEFAULT);
    if (ds >= 0) {
        sp__result_read_attr(ds, "no_majority", fp->ties, sizeof(fp->ties));
        H5Dclose(ds);
    }
}

void sp_result_read_launch(hid_t file, char *out, size_t outlen)
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

hsize_t sp_result_read_extent(hid_t file, const char *name)
{
    hsize_t dims[2] = {0, 0};
    hid_t ds;
    hid_t space;

    if (H5Lexists(file, name, H5P_DEFAULT) <= 0) {
        return 0;
    }
    ds = H5Dopen2(file, name, H5P_DEFAULT);
    if (ds < 0) {
        return 0;
    }
    space = H5Dget_space(ds);
    if (space < 0 || H5Sget_simple_extent_ndims(space) < 1 ||
        H5Sget_simple_extent_ndims(space) > 2 || H5Sget_simple_extent_dims(space, dims, NULL) < 0) {
        dims[0] = 0;
    }
    if (space >= 0) {
        H5Sclose(space);
    }
    H5Dclose(ds);
    return dims[0];
}

sp_status_t sp_result_read_slab(const char *path, const char *name, hid_t type, hsize_t row,
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
