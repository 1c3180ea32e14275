/* HDF5 result writer. Tables are 1-D chunked, extendible datasets of compound rows, so a run of
 * any length appends without rewriting, and every append is flushed: a killed run leaves every
 * finished point readable. String-valued columns are HDF5 enums, readable by h5dump and h5py. */
#include "result.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "coll.h"
#include "dtype.h"
#include "log.h"
#include "timeutil.h"

struct sp_result {
    char path[4096];
    hid_t file;
    hid_t tl_events;     /* /timeline/events, while a timeline is being written */
    hid_t tl_ranks;
    hid_t tl_event_type;
    hid_t tl_rank_type;
    uint64_t tl_nevents;
    uint64_t tl_nranks;
    hid_t coll;          /* /coll, created on first append */
    hid_t results;
    hid_t samples;
    hid_t rank_times;
    hid_t wrong;
    hid_t row_type;
    hid_t sample_type;
    hid_t wrong_type;
    int coll_sealed;     /* /coll handles closed for a collective write: no more appends */
    uint64_t nrows;
    uint64_t nsamples;
    uint64_t nwrong;
    uint64_t proxy_rows; /* rows in /proxy/ranks */
    int nranks;
};

/* ---- HDF5 error message ---- */

static char h5_error_msg[256];

static herr_t h5_walk_cb(unsigned n, const H5E_error2_t *err, void *data)
{
    (void)data;
    if (n == 0) {
        snprintf(h5_error_msg, sizeof(h5_error_msg), "%s (%s)", err->desc ? err->desc : "?",
                 err->func_name ? err->func_name : "?");
    }
    return 0;
}

const char *sp__result_h5_error(void)
{
    snprintf(h5_error_msg, sizeof(h5_error_msg), "unknown HDF5 error");
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, h5_walk_cb, NULL);
    return h5_error_msg;
}

static sp_status_t h5_fail(const char *what)
{
    sp_error("HDF5: %s: %s", what, sp__result_h5_error());
    return SP_ERR_IO;
}

/* ---- types ---- */

hid_t sp__result_enum8(const char *const *names, int n, int with_none)
{
    hid_t t = H5Tenum_create(H5T_NATIVE_INT8);

    for (int i = 0; i < n; i++) {
        int8_t v = (int8_t)i;
        H5Tenum_insert(t, names[i], &v);
    }
    if (with_none) {
        int8_t v = SP_REDOP_NONE;
        H5Tenum_insert(t, "none", &v);
    }
    return t;
}

hid_t sp__result_row_type(void)
{
    const char *dnames[SP_DTYPE_COUNT];
    const char *rnames[SP_REDOP_COUNT];
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_coll_row_t));
    hid_t op_t = sp__result_enum8(sp_coll_names, SP_COLL_COUNT, 0);
    hid_t dt_t;
    hid_t red_t;

    for (int i = 0; i < SP_DTYPE_COUNT; i++) {
        dnames[i] = sp_dtype_name((sp_dtype_t)i);
    }
    for (int i = 0; i < SP_REDOP_COUNT; i++) {
        rnames[i] = sp_redop_name((sp_redop_t)i);
    }
    dt_t = sp__result_enum8(dnames, SP_DTYPE_COUNT, 0);
    red_t = sp__result_enum8(rnames, SP_REDOP_COUNT, 1);

#define F(name, type) H5Tinsert(t, #name, HOFFSET(sp_coll_row_t, name), type)
    F(op, op_t);
    F(dtype, dt_t);
    F(redop, red_t);
    F(in_place, H5T_NATIVE_INT8);
    F(root, H5T_NATIVE_INT32);
    F(bytes, H5T_NATIVE_UINT64);
    F(count, H5T_NATIVE_UINT64);
    F(samples, H5T_NATIVE_UINT32);
    F(batch, H5T_NATIVE_UINT32);
    F(converged, H5T_NATIVE_INT8);
    F(time_us, H5T_NATIVE_DOUBLE);
    F(mean_us, H5T_NATIVE_DOUBLE);
    F(stddev_us, H5T_NATIVE_DOUBLE);
    F(min_us, H5T_NATIVE_DOUBLE);
    F(max_us, H5T_NATIVE_DOUBLE);
    F(p99_us, H5T_NATIVE_DOUBLE);
    F(ci_lo_us, H5T_NATIVE_DOUBLE);
    F(ci_hi_us, H5T_NATIVE_DOUBLE);
    F(ci_rel, H5T_NATIVE_DOUBLE);
    F(algbw_gbps, H5T_NATIVE_DOUBLE);
    F(busbw_gbps, H5T_NATIVE_DOUBLE);
    F(wrong, H5T_NATIVE_INT64);
    F(wrong_ranks, H5T_NATIVE_INT32);
    F(slowest_rank, H5T_NATIVE_INT32);
    F(slowest_margin, H5T_NATIVE_DOUBLE);
    F(sample_offset, H5T_NATIVE_UINT64);
    F(elapsed_s, H5T_NATIVE_DOUBLE);
#undef F
    H5Tclose(op_t);
    H5Tclose(dt_t);
    H5Tclose(red_t);
    return t;
}

hid_t sp__result_sample_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_coll_sample_t));

    H5Tinsert(t, "time_us", HOFFSET(sp_coll_sample_t, time_us), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "slowest_rank", HOFFSET(sp_coll_sample_t, slowest_rank), H5T_NATIVE_INT32);
    return t;
}

hid_t sp__result_wrong_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_coll_wrong_t));

    H5Tinsert(t, "row", HOFFSET(sp_coll_wrong_t, row), H5T_NATIVE_UINT64);
    H5Tinsert(t, "rank", HOFFSET(sp_coll_wrong_t, rank), H5T_NATIVE_INT32);
    H5Tinsert(t, "wrong", HOFFSET(sp_coll_wrong_t, wrong), H5T_NATIVE_UINT64);
    return t;
}

hid_t sp__result_topo_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_topo_rank_t));
    hid_t str = H5Tcopy(H5T_C_S1);

    H5Tset_size(str, SP_HOST_LEN);
    H5Tset_strpad(str, H5T_STR_NULLTERM);
    H5Tinsert(t, "rank", HOFFSET(sp_topo_rank_t, rank), H5T_NATIVE_INT32);
    H5Tinsert(t, "node", HOFFSET(sp_topo_rank_t, node), H5T_NATIVE_INT32);
    H5Tinsert(t, "local_rank", HOFFSET(sp_topo_rank_t, local_rank), H5T_NATIVE_INT32);
    H5Tinsert(t, "local_size", HOFFSET(sp_topo_rank_t, local_size), H5T_NATIVE_INT32);
    H5Tinsert(t, "host", HOFFSET(sp_topo_rank_t, host), str);
    H5Tinsert(t, "device", HOFFSET(sp_topo_rank_t, device), str);
    H5Tclose(str);
    str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, sizeof(((sp_topo_rank_t *)0)->bus_id));
    H5Tset_strpad(str, H5T_STR_NULLTERM);
    H5Tinsert(t, "bus_id", HOFFSET(sp_topo_rank_t, bus_id), str);
    H5Tclose(str);
    return t;
}

hid_t sp__result_event_type(void)
{
    const char *cnames[SP_COLL_COUNT + 1];
    const char *dnames[SP_DTYPE_COUNT + 1];
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_event_rec_t));
    hid_t op_t = H5Tenum_create(H5T_NATIVE_INT16);
    hid_t dt_t = H5Tenum_create(H5T_NATIVE_INT16);
    hid_t k16 = H5Tenum_create(H5T_NATIVE_INT16);

    for (int i = 0; i < SP_EV_KIND_COUNT; i++) {
        int16_t v = (int16_t)i;
        H5Tenum_insert(k16, sp_ev_kind_names[i], &v);
    }
    for (int i = -1; i < SP_COLL_COUNT; i++) {
        int16_t v = (int16_t)i;
        cnames[i + 1] = i < 0 ? "none" : sp_coll_names[i];
        H5Tenum_insert(op_t, cnames[i + 1], &v);
    }
    for (int i = -1; i < SP_DTYPE_COUNT; i++) {
        int16_t v = (int16_t)i;
        dnames[i + 1] = i < 0 ? "none" : sp_dtype_names[i];
        H5Tenum_insert(dt_t, dnames[i + 1], &v);
    }
#define F(name, type) H5Tinsert(t, #name, HOFFSET(sp_event_rec_t, name), type)
    F(rank, H5T_NATIVE_INT32);
    F(lane, H5T_NATIVE_INT16);
    F(kind, k16);
    F(op, op_t);
    F(dtype, dt_t);
    F(step, H5T_NATIVE_INT32);
    F(microbatch, H5T_NATIVE_INT32);
    F(chunk, H5T_NATIVE_INT32);
    F(layer, H5T_NATIVE_INT32);
    F(bucket, H5T_NATIVE_INT32);
    F(peer, H5T_NATIVE_INT32);
    F(nops, H5T_NATIVE_INT32);
    F(bytes, H5T_NATIVE_UINT64);
    F(flops, H5T_NATIVE_DOUBLE);
    F(seq, H5T_NATIVE_UINT64);
    F(start_ns, H5T_NATIVE_INT64);
    F(end_ns, H5T_NATIVE_INT64);
#undef F
    H5Tclose(k16);
    H5Tclose(op_t);
    H5Tclose(dt_t);
    return t;
}

hid_t sp__result_tl_rank_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_tl_rank_t));

    H5Tinsert(t, "rank", HOFFSET(sp_tl_rank_t, rank), H5T_NATIVE_INT32);
    H5Tinsert(t, "offset", HOFFSET(sp_tl_rank_t, offset), H5T_NATIVE_UINT64);
    H5Tinsert(t, "count", HOFFSET(sp_tl_rank_t, count), H5T_NATIVE_UINT64);
    H5Tinsert(t, "dropped", HOFFSET(sp_tl_rank_t, dropped), H5T_NATIVE_UINT64);
    return t;
}

hid_t sp__result_clock_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_clock_rank_t));

#define F(name, type) H5Tinsert(t, #name, HOFFSET(sp_clock_rank_t, name), type)
    F(rank, H5T_NATIVE_INT32);
    F(node, H5T_NATIVE_INT32);
    F(measured, H5T_NATIVE_INT32);
    F(offset_ns, H5T_NATIVE_INT64);
    F(offset_end_ns, H5T_NATIVE_INT64);
    F(drift, H5T_NATIVE_DOUBLE);
    F(err_ns, H5T_NATIVE_INT64);
    F(rtt_ns, H5T_NATIVE_INT64);
    F(sync_start_ns, H5T_NATIVE_INT64);
    F(sync_end_ns, H5T_NATIVE_INT64);
#undef F
    return t;
}

void sp__result_insert_str(hid_t t, const char *name, size_t offset, size_t n)
{
    hid_t str = H5Tcopy(H5T_C_S1);

    H5Tset_size(str, n);
    H5Tset_strpad(str, H5T_STR_NULLTERM);
    H5Tinsert(t, name, offset, str);
    H5Tclose(str);
}

hid_t sp__result_fp_rank_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_fp_rank_t));

    /* the field table describes every member, so the file and the struct cannot drift apart */
    for (int f = 0; f < sp_fp_nfields; f++) {
        const sp_fp_field_t *fd = &sp_fp_fields[f];
        if (fd->kind == SP_FP_INT) {
            H5Tinsert(t, fd->name, fd->offset, H5T_NATIVE_INT32);
        } else {
            sp__result_insert_str(t, fd->name, fd->offset, fd->size);
        }
    }
    return t;
}

hid_t sp__result_fp_node_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_fp_node_t));

#define F(m) HOFFSET(sp_fp_node_t, m), sizeof(((sp_fp_node_t *)0)->m)
    H5Tinsert(t, "node", HOFFSET(sp_fp_node_t, node), H5T_NATIVE_INT32);
    H5Tinsert(t, "nranks", HOFFSET(sp_fp_node_t, nranks), H5T_NATIVE_INT32);
    sp__result_insert_str(t, "host", F(host));
    H5Tinsert(t, "differs", HOFFSET(sp_fp_node_t, differs), H5T_NATIVE_INT32);
    sp__result_insert_str(t, "differs_in", F(differs_in));
    sp__result_insert_str(t, "mixed_in", F(mixed_in));
    sp__result_insert_str(t, "key", F(key));
#undef F
    return t;
}

/* ---- attributes ---- */

static sp_status_t write_attr_str(hid_t obj, const char *name, const char *value)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr;
    sp_status_t status = SP_OK;

    H5Tset_size(type, strlen(value) + 1);
    H5Tset_strpad(type, H5T_STR_NULLTERM);
    if (H5Aexists(obj, name) > 0) {
        H5Adelete(obj, name);
    }
    attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0 || H5Awrite(attr, type, value) < 0) {
        status = h5_fail(name);
    }
    if (attr >= 0) {
        H5Aclose(attr);
    }
    H5Sclose(space);
    H5Tclose(type);
    return status;
}

static sp_status_t write_attr_int(hid_t obj, const char *name, long long value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate2(obj, name, H5T_NATIVE_LLONG, space, H5P_DEFAULT, H5P_DEFAULT);
    sp_status_t status = SP_OK;

    if (attr < 0 || H5Awrite(attr, H5T_NATIVE_LLONG, &value) < 0) {
        status = h5_fail(name);
    }
    if (attr >= 0) {
        H5Aclose(attr);
    }
    H5Sclose(space);
    return status;
}

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
    ftype = H5Aget_type(attr);
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

/* ---- file ---- */

static sp_status_t make_parent_dirs(const char *path)
{
    char buf[4096];

    if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
        return SP_ERR_INVALID;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') {
            continue;
        }
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            sp_error("cannot create directory %s: %s", buf, strerror(errno));
            return SP_ERR_IO;
        }
        *p = '/';
    }
    return SP_OK;
}

sp_status_t sp_result_check_path(const char *path, int force)
{
    struct stat st;
    char dir[4096];
    char *slash;

    if (path[0] == '\0' || snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir)) {
        return SP_ERR_INVALID;
    }
    if (stat(path, &st) == 0) {
        if (!force) {
            return SP_ERR_EXISTS;
        }
        if (!S_ISREG(st.st_mode) || access(path, W_OK) != 0) {
            return SP_ERR_INVALID;
        }
        return SP_OK;
    }
    /* the nearest existing ancestor must be a writable directory (missing ones get created) */
    for (;;) {
        slash = strrchr(dir, '/');
        if (slash == NULL) {
            snprintf(dir, sizeof(dir), ".");
        } else if (slash == dir) {
            dir[1] = '\0';
        } else {
            *slash = '\0';
        }
        if (stat(dir, &st) == 0) {
            return S_ISDIR(st.st_mode) && access(dir, W_OK | X_OK) == 0 ? SP_OK : SP_ERR_INVALID;
        }
        if (slash == NULL || slash == dir) {
            return SP_ERR_INVALID;
        }
    }
}

sp_status_t sp_result_create(const char *path, int force, const sp_result_info_t *info,
                             sp_result_t **res_p)
{
    sp_result_t *res;
    char created[64];
    sp_status_t status;

    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    status = sp_result_check_path(path, force);
    if (status != SP_OK) {
        return status;
    }
    status = make_parent_dirs(path);
    if (status != SP_OK) {
        return status;
    }
    res = calloc(1, sizeof(*res));
    if (res == NULL) {
        return SP_ERR_NOMEM;
    }
    res->coll = res->results = res->samples = res->rank_times = res->wrong = H5I_INVALID_HID;
    res->tl_events = res->tl_ranks = res->tl_event_type = res->tl_rank_type = H5I_INVALID_HID;
    snprintf(res->path, sizeof(res->path), "%s", path);
    /* EXCL closes the race between the check above and the creation */
    res->file = H5Fcreate(path, force ? H5F_ACC_TRUNC : H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    if (res->file < 0) {
        sp_error("cannot create result file %s: %s", path, sp__result_h5_error());
        free(res);
        return SP_ERR_IO;
    }
    res->row_type = sp__result_row_type();
    res->sample_type = sp__result_sample_type();
    res->wrong_type = sp__result_wrong_type();
    res->nranks = info->world_size;

    sp_time_iso8601(time(NULL), created, sizeof(created));
    status = write_attr_str(res->file, "format", "scaleprobe");
    if (status == SP_OK) {
        status = write_attr_int(res->file, "schema_version", SP_SCHEMA_VERSION);
    }
    if (status == SP_OK) {
        status = write_attr_str(res->file, "tool_version", SP_VERSION);
    }
    if (status == SP_OK) {
        status = write_attr_str(res->file, "created", created);
    }
    if (status == SP_OK) {
        status = write_attr_str(res->file, "command_line", info->command_line);
    }
    if (status == SP_OK) {
        status = write_attr_str(res->file, "subcommand", info->subcommand);
    }
    if (status == SP_OK) {
        status = write_attr_str(res->file, "backend", info->backend);
    }
    if (status == SP_OK) {
        status = write_attr_int(res->file, "world_size", info->world_size);
    }
    if (status == SP_OK) {
        status = write_attr_int(res->file, "node_count", info->node_count);
    }
    if (status == SP_OK) {
        status = write_attr_str(res->file, "status", "partial");
    }
    if (status == SP_OK && H5Fflush(res->file, H5F_SCOPE_GLOBAL) < 0) {
        status = h5_fail("flush");
    }
    if (status != SP_OK) {
        sp_result_close(res, "failed");
        return status;
    }
    *res_p = res;
    return SP_OK;
}

sp_status_t sp_result_write_config(sp_result_t *res, const sp_opt_table_t *table, const void *opts)
{
    hid_t group = H5Gcreate2(res->file, "config", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    char value[SP_OPT_STRLEN + 64];
    sp_status_t status = SP_OK;

    if (group < 0) {
        return h5_fail("create /config");
    }
    for (int i = 0; i < table->ndefs && status == SP_OK; i++) {
        sp_opts_format(&table->defs[i], opts, value, sizeof(value));
        status = write_attr_str(group, table->defs[i].long_name, value);
    }
    H5Gclose(group);
    return status;
}

/* A 1-D chunked extendible dataset of the given type. */
static hid_t create_table(hid_t loc, const char *name, hid_t type, hsize_t chunk)
{
    hsize_t dims[1] = {0};
    hsize_t maxdims[1] = {H5S_UNLIMITED};
    hid_t space = H5Screate_simple(1, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t ds;

    H5Pset_chunk(dcpl, 1, &chunk);
    H5Pset_deflate(dcpl, 4);
    ds = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    return ds;
}

/* Append n rows to a 1-D table currently holding *cur rows. */
static sp_status_t append_rows(hid_t ds, hid_t type, uint64_t *cur, const void *data, size_t n)
{
    hsize_t start[1] = {*cur};
    hsize_t count[1] = {n};
    hsize_t newsize[1] = {*cur + n};
    hid_t fspace;
    hid_t mspace;
    herr_t rc;

    if (n == 0) {
        return SP_OK;
    }
    if (H5Dset_extent(ds, newsize) < 0) {
        return h5_fail("extend table");
    }
    fspace = H5Dget_space(ds);
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    mspace = H5Screate_simple(1, count, NULL);
    rc = H5Dwrite(ds, type, mspace, fspace, H5P_DEFAULT, data);
    H5Sclose(mspace);
    H5Sclose(fspace);
    if (rc < 0) {
        return h5_fail("write table rows");
    }
    *cur += n;
    return SP_OK;
}

sp_status_t sp_result_write_topology(sp_result_t *res, const sp_topo_t *topo)
{
    hid_t group = H5Gcreate2(res->file, "topology", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t type = sp__result_topo_type();
    hid_t ds;
    uint64_t n = 0;
    sp_status_t status;

    if (group < 0) {
        H5Tclose(type);
        return h5_fail("create /topology");
    }
    ds = create_table(group, "ranks", type, (hsize_t)(topo->nranks < 1024 ? topo->nranks : 1024));
    if (ds < 0) {
        status = h5_fail("create /topology/ranks");
    } else {
        status = append_rows(ds, type, &n, topo->ranks, (size_t)topo->nranks);
        H5Dclose(ds);
    }
    if (status == SP_OK) {
        status = write_attr_int(group, "node_count", topo->nnodes);
    }
    H5Tclose(type);
    H5Gclose(group);
    return status;
}

static sp_status_t write_kv_attrs(hid_t group, const sp_kv_t *kv, int n)
{
    sp_status_t status = SP_OK;

    for (int i = 0; i < n && status == SP_OK; i++) {
        status = write_attr_str(group, kv[i].key, kv[i].value);
    }
    return status;
}

/* /fingerprint/ranks and /fingerprint/nodes, with the majority flags computed here. */
static sp_status_t write_fp_tables(hid_t group, sp_fp_rank_t *ranks, int nranks, int nnodes)
{
    sp_fp_node_t *nodes = calloc((size_t)(nnodes > 0 ? nnodes : 1), sizeof(*nodes));
    char ties[SP_FP_FLAGS_LEN];
    hid_t type = -1;
    hid_t ds;
    uint64_t n = 0;
    sp_status_t status;

    if (nodes == NULL) {
        return SP_ERR_NOMEM;
    }
    status = sp_fp_majority(ranks, nranks, nodes, nnodes, NULL, NULL, ties, sizeof(ties));
    if (status == SP_OK) {
        type = sp__result_fp_rank_type();
        ds = create_table(group, "ranks", type,
                          (hsize_t)(nranks > 0 && nranks < 256 ? nranks : 256));
        status = ds < 0 ? h5_fail("create /fingerprint/ranks")
                        : append_rows(ds, type, &n, ranks, (size_t)nranks);
        if (ds >= 0) {
            H5Dclose(ds);
        }
        H5Tclose(type);
    }
    if (status == SP_OK) {
        n = 0;
        type = sp__result_fp_node_type();
        ds = create_table(group, "nodes", type, (hsize_t)(nnodes > 0 && nnodes < 64 ? nnodes : 64));
        status = ds < 0 ? h5_fail("create /fingerprint/nodes")
                        : append_rows(ds, type, &n, nodes, (size_t)nnodes);
        if (status == SP_OK) {
            status = write_attr_str(ds, "no_majority", ties);
        }
        if (ds >= 0) {
            H5Dclose(ds);
        }
        H5Tclose(type);
    }
    free(nodes);
    return status;
}

sp_status_t sp_result_write_fingerprint(sp_result_t *res, const sp_kv_t *versions, int nversions,
                                        const sp_kv_t *env, int nenv, sp_fp_rank_t *ranks,
                                        int nranks, int nnodes)
{
    hid_t group = H5Gcreate2(res->file, "fingerprint", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t envg;
    sp_status_t status;

    if (group < 0) {
        return h5_fail("create /fingerprint");
    }
    status = write_kv_attrs(group, versions, nversions);
    envg = H5Gcreate2(group, "environment", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (envg < 0) {
        status = status == SP_OK ? h5_fail("create /fingerprint/environment") : status;
    } else {
        if (status == SP_OK) {
            status = write_kv_attrs(envg, env, nenv);
        }
        H5Gclose(envg);
    }
    if (status == SP_OK && ranks != NULL) {
        status = write_fp_tables(group, ranks, nranks, nnodes);
    }
    H5Gclose(group);
    return status;
}

sp_status_t sp_result_write_launch(sp_result_t *res, const sp_kv_t *kv, int n)
{
    hid_t group = H5Gcreate2(res->file, "launch", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    sp_status_t status;

    if (group < 0) {
        return h5_fail("create /launch");
    }
    status = write_kv_attrs(group, kv, n);
    H5Gclose(group);
    return status;
}

static sp_status_t coll_group_open(sp_result_t *res)
{
    hsize_t dims[2] = {0, (hsize_t)res->nranks};
    hsize_t maxdims[2] = {H5S_UNLIMITED, (hsize_t)res->nranks};
    hsize_t chunk[2] = {1, (hsize_t)res->nranks};
    hid_t space;
    hid_t dcpl;

    res->coll = H5Gcreate2(res->file, "coll", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (res->coll < 0) {
        return h5_fail("create /coll");
    }
    res->results = create_table(res->coll, "results", res->row_type, 64);
    res->samples = create_table(res->coll, "samples", res->sample_type, 1024);
    res->wrong = create_table(res->coll, "wrong", res->wrong_type, 64);
    space = H5Screate_simple(2, dims, maxdims);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    /* one row per chunk: rows are written one at a time, and a reader of one point reads one */
    if (chunk[1] * sizeof(double) > (1u << 20)) {
        chunk[1] = (1u << 20) / sizeof(double);
    }
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_deflate(dcpl, 4);
    res->rank_times = H5Dcreate2(res->coll, "rank_times", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT,
                                 dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (res->results < 0 || res->samples < 0 || res->wrong < 0 || res->rank_times < 0) {
        return h5_fail("create /coll tables");
    }
    return SP_OK;
}

sp_status_t sp_result_coll_append(sp_result_t *res, sp_coll_row_t *row,
                                  const sp_coll_sample_t *samples, const double *rank_times_us,
                                  int nranks, sp_coll_wrong_t *wrong, size_t nwrong)
{
    sp_status_t status;
    hsize_t start[2];
    hsize_t count[2];
    hsize_t newsize[2];
    hid_t fspace;
    hid_t mspace;
    herr_t rc;

    if (res->coll_sealed) {
        sp_error("internal: sweep point appended after the file was handed to a collective write");
        return SP_ERR_INVALID;
    }
    if (res->coll < 0) {
        status = coll_group_open(res);
        if (status != SP_OK) {
            return status;
        }
    }
    if (nranks != res->nranks) {
        return SP_ERR_INVALID;
    }
    row->sample_offset = res->nsamples;
    for (size_t i = 0; i < nwrong; i++) {
        wrong[i].row = res->nrows;
    }
    status = append_rows(res->samples, res->sample_type, &res->nsamples, samples, row->samples);
    if (status != SP_OK) {
        return status;
    }
    status = append_rows(res->wrong, res->wrong_type, &res->nwrong, wrong, nwrong);
    if (status != SP_OK) {
        return status;
    }

    start[0] = res->nrows;
    start[1] = 0;
    count[0] = 1;
    count[1] = (hsize_t)nranks;
    newsize[0] = res->nrows + 1;
    newsize[1] = (hsize_t)nranks;
    if (H5Dset_extent(res->rank_times, newsize) < 0) {
        return h5_fail("extend /coll/rank_times");
    }
    fspace = H5Dget_space(res->rank_times);
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    mspace = H5Screate_simple(2, count, NULL);
    rc = H5Dwrite(res->rank_times, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, rank_times_us);
    H5Sclose(mspace);
    H5Sclose(fspace);
    if (rc < 0) {
        return h5_fail("write /coll/rank_times");
    }
    /* the row goes last: a reader that sees a row also sees its samples and rank times */
    status = append_rows(res->results, res->row_type, &res->nrows, row, 1);
    if (status != SP_OK) {
        return status;
    }
    if (H5Fflush(res->file, H5F_SCOPE_GLOBAL) < 0) {
        return h5_fail("flush");
    }
    return SP_OK;
}

sp_status_t sp_result_timeline_open(sp_result_t *res, int64_t err_ns)
{
    hid_t group = H5Gcreate2(res->file, "timeline", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    sp_status_t status = SP_OK;

    if (group < 0) {
        return h5_fail("create /timeline");
    }
    res->tl_event_type = sp__result_event_type();
    res->tl_rank_type = sp__result_tl_rank_type();
    /* 8192 events (~0.7 MB) per chunk: large enough to compress well, small enough to read a
     * rank's events without the whole table */
    res->tl_events = create_table(group, "events", res->tl_event_type, 8192);
    res->tl_ranks = create_table(group, "ranks", res->tl_rank_type, 1024);
    if (res->tl_events < 0 || res->tl_ranks < 0) {
        status = h5_fail("create /timeline tables");
    }
    if (status == SP_OK) {
        status = write_attr_int(group, "clock_err_ns", err_ns);
    }
    if (status == SP_OK) {
        status = write_attr_str(group, "time_base", "rank 0's CLOCK_MONOTONIC, ns (see /clock)");
    }
    H5Gclose(group);
    return status;
}

sp_status_t sp_result_timeline_append(sp_result_t *res, const sp_event_rec_t *events, size_t n)
{
    return append_rows(res->tl_events, res->tl_event_type, &res->tl_nevents, events, n);
}

uint64_t sp_result_timeline_count(const sp_result_t *res)
{
    return res->tl_nevents;
}

sp_status_t sp_result_timeline_rank(sp_result_t *res, const sp_tl_rank_t *row)
{
    return append_rows(res->tl_ranks, res->tl_rank_type, &res->tl_nranks, row, 1);
}

sp_status_t sp_result_timeline_close(sp_result_t *res)
{
    if (res->tl_events >= 0) {
        H5Dclose(res->tl_events);
        H5Dclose(res->tl_ranks);
        H5Tclose(res->tl_event_type);
        H5Tclose(res->tl_rank_type);
        res->tl_events = res->tl_ranks = res->tl_event_type = res->tl_rank_type =
            H5I_INVALID_HID;
    }
    if (H5Fflush(res->file, H5F_SCOPE_GLOBAL) < 0) {
        return h5_fail("flush");
    }
    return SP_OK;
}

sp_status_t sp_result_timeline_stats(sp_result_t *res, uint64_t events, uint64_t dropped,
                                     double seconds, long peak_rss_kib, int64_t err_ns,
                                     const char *io)
{
    hid_t group = H5Gopen2(res->file, "timeline", H5P_DEFAULT);
    char buf[64];
    sp_status_t status = SP_OK;

    if (group < 0) {
        return h5_fail("open /timeline");
    }
    /* the rank-0 path wrote these when it created the table; a collective write did not */
    if (H5Aexists(group, "clock_err_ns") <= 0) {
        status = write_attr_int(group, "clock_err_ns", err_ns);
    }
    if (status == SP_OK) {
        status = write_attr_str(group, "time_base", "rank 0's CLOCK_MONOTONIC, ns (see /clock)");
    }
    if (status == SP_OK) {
        status = write_attr_str(group, "io", io);
    }
    if (status == SP_OK) {
        status = write_attr_int(group, "events", (long long)events);
    }
    if (status == SP_OK) {
        status = write_attr_int(group, "dropped", (long long)dropped);
    }
    if (status == SP_OK) {
        snprintf(buf, sizeof(buf), "%.0f", seconds > 0.0 ? (double)events / seconds : 0.0);
        status = write_attr_str(group, "aggregation_events_per_s", buf);
    }
    if (status == SP_OK) {
        status = write_attr_int(group, "aggregation_rank0_peak_rss_kib", peak_rss_kib);
    }
    H5Gclose(group);
    return status;
}

sp_status_t sp_result_write_clock(sp_result_t *res, const sp_clock_rank_t *rows, size_t n,
                                  const char *method, int pings)
{
    hid_t group = H5Gcreate2(res->file, "clock", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t type = sp__result_clock_type();
    hid_t ds;
    uint64_t cur = 0;
    sp_status_t status;

    if (group < 0) {
        H5Tclose(type);
        return h5_fail("create /clock");
    }
    ds = create_table(group, "ranks", type, 1024);
    status = ds < 0 ? h5_fail("create /clock/ranks") : append_rows(ds, type, &cur, rows, n);
    if (ds >= 0) {
        H5Dclose(ds);
    }
    if (status == SP_OK) {
        status = write_attr_str(group, "method", method);
    }
    if (status == SP_OK) {
        status = write_attr_int(group, "pings", pings);
    }
    H5Tclose(type);
    H5Gclose(group);
    return status;
}

hid_t sp__result_proxy_rank_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_proxy_rank_row_t));

#define PI(name) H5Tinsert(t, #name, HOFFSET(sp_proxy_rank_row_t, name), H5T_NATIVE_INT32)
#define PD(name) H5Tinsert(t, #name, HOFFSET(sp_proxy_rank_row_t, name), H5T_NATIVE_DOUBLE)
    PI(step);
    PI(rank);
    PI(stage);
    PI(dp);
    PI(tp);
    PD(step_ms);
    PD(busy_ms);
    PD(bubble_ms);
    PD(bubble_frac);
    PD(predicted_frac);
    PD(warmup_ms);
    PD(steady_ms);
    PD(cooldown_ms);
    PD(tp_ms);
    PD(tp_overlap);
    PD(tp_exposed_ms);
    PD(pp_ms);
    PD(pp_overlap);
    PD(pp_exposed_ms);
    PD(dp_ms);
    PD(dp_overlap);
    PD(dp_exposed_ms);
    PD(exposed_ms);
    PD(slowdown);
#undef PI
#undef PD
    return t;
}

hid_t sp__result_proxy_info_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_proxy_info_t));

#define PF(name, type) H5Tinsert(t, #name, HOFFSET(sp_proxy_info_t, name), type)
    PF(pp, H5T_NATIVE_INT32);
    PF(tp, H5T_NATIVE_INT32);
    PF(dp, H5T_NATIVE_INT32);
    PF(microbatches, H5T_NATIVE_INT32);
    PF(chunks, H5T_NATIVE_INT32);
    PF(sequence_parallel, H5T_NATIVE_INT32);
    PF(overlap, H5T_NATIVE_INT32);
    PF(causal, H5T_NATIVE_INT32);
    PF(layers, H5T_NATIVE_INT64);
    PF(hidden, H5T_NATIVE_INT64);
    PF(heads, H5T_NATIVE_INT64);
    PF(ffn, H5T_NATIVE_INT64);
    PF(seq, H5T_NATIVE_INT64);
    PF(micro_batch, H5T_NATIVE_INT64);
    PF(vocab, H5T_NATIVE_INT64);
    PF(tflops, H5T_NATIVE_DOUBLE);
    PF(peak_tflops, H5T_NATIVE_DOUBLE);
    PF(tokens_per_step, H5T_NATIVE_DOUBLE);
    PF(flops_per_step, H5T_NATIVE_DOUBLE);
    PF(bucket_mib, H5T_NATIVE_DOUBLE);
#undef PF
    return t;
}

sp_status_t sp_result_proxy_begin(sp_result_t *res, const sp_proxy_info_t *info,
                                  const char *schedule, const char *model, const char *dp_mode,
                                  const char *dtype)
{
    hid_t group = H5Gcreate2(res->file, "proxy", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t itype = sp__result_proxy_info_type();
    hid_t rtype = sp__result_proxy_rank_type();
    hid_t ds = -1;
    uint64_t cur = 0;
    sp_status_t status = group < 0 ? h5_fail("create /proxy") : SP_OK;

    if (status == SP_OK) {
        ds = create_table(group, "info", itype, 1);
        status = ds < 0 ? h5_fail("create /proxy/info") : append_rows(ds, itype, &cur, info, 1);
    }
    if (ds >= 0) {
        H5Dclose(ds);
    }
    if (status == SP_OK) {
        ds = create_table(group, "ranks", rtype, 1024);
        status = ds < 0 ? h5_fail("create /proxy/ranks") : SP_OK;
        if (ds >= 0) {
            H5Dclose(ds);
        }
    }
    if (status == SP_OK) {
        status = write_attr_str(group, "schedule", schedule);
    }
    if (status == SP_OK) {
        status = write_attr_str(group, "model", model);
    }
    if (status == SP_OK) {
        status = write_attr_str(group, "dp_mode", dp_mode);
    }
    if (status == SP_OK) {
        status = write_attr_str(group, "dtype", dtype);
    }
    H5Tclose(itype);
    H5Tclose(rtype);
    if (group >= 0) {
        H5Gclose(group);
    }
    res->proxy_rows = 0;
    if (status == SP_OK && H5Fflush(res->file, H5F_SCOPE_GLOBAL) < 0) {
        status = h5_fail("flush");
    }
    return status;
}

sp_status_t sp_result_proxy_append(sp_result_t *res, const sp_proxy_rank_row_t *rows, size_t n)
{
    hid_t type = sp__result_proxy_rank_type();
    hid_t ds = H5Dopen2(res->file, "/proxy/ranks", H5P_DEFAULT);
    sp_status_t status = ds < 0 ? h5_fail("open /proxy/ranks")
                                : append_rows(ds, type, &res->proxy_rows, rows, n);

    if (ds >= 0) {
        H5Dclose(ds);
    }
    H5Tclose(type);
    if (status == SP_OK && H5Fflush(res->file, H5F_SCOPE_GLOBAL) < 0) {
        status = h5_fail("flush");
    }
    return status;
}

sp_status_t sp_result_proxy_mark_predicted(sp_result_t *res, const char *source)
{
    hid_t group = H5Gopen2(res->file, "proxy", H5P_DEFAULT);
    sp_status_t status = group < 0 ? h5_fail("open /proxy") : write_attr_int(group, "predicted", 1);

    if (status == SP_OK) {
        status = write_attr_str(group, "predicted_source", source);
    }
    if (group >= 0) {
        H5Gclose(group);
    }
    return status;
}

sp_status_t sp_result_group_create(sp_result_t *res, const char *path)
{
    hid_t lcpl;
    hid_t group;

    if (H5Lexists(res->file, path, H5P_DEFAULT) > 0) {
        return SP_OK;
    }
    lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    group = H5Gcreate2(res->file, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    if (group < 0) {
        return h5_fail(path);
    }
    H5Gclose(group);
    return SP_OK;
}

sp_status_t sp_result_table_create(sp_result_t *res, const char *path, hid_t type,
                                   size_t chunk_rows)
{
    hid_t ds = create_table(res->file, path, type, (hsize_t)(chunk_rows > 0 ? chunk_rows : 1));

    if (ds < 0) {
        return h5_fail(path);
    }
    H5Dclose(ds);
    return SP_OK;
}

sp_status_t sp_result_table_append(sp_result_t *res, const char *path, hid_t type,
                                   const void *rows, size_t n)
{
    hid_t ds = H5Dopen2(res->file, path, H5P_DEFAULT);
    hid_t space;
    hsize_t dims[1] = {0};
    uint64_t cur;
    sp_status_t status;

    if (ds < 0) {
        return h5_fail(path);
    }
    space = H5Dget_space(ds);
    H5Sget_simple_extent_dims(space, dims, NULL);
    H5Sclose(space);
    cur = (uint64_t)dims[0];
    status = append_rows(ds, type, &cur, rows, n);
    H5Dclose(ds);
    if (status == SP_OK && H5Fflush(res->file, H5F_SCOPE_GLOBAL) < 0) {
        status = h5_fail("flush");
    }
    return status;
}

sp_status_t sp_result_attr_str(sp_result_t *res, const char *path, const char *name,
                               const char *value)
{
    hid_t obj = H5Oopen(res->file, path, H5P_DEFAULT);
    sp_status_t status;

    if (obj < 0) {
        return h5_fail(path);
    }
    status = write_attr_str(obj, name, value);
    H5Oclose(obj);
    return status;
}

const char *sp_result_path(const sp_result_t *res)
{
    return res->path;
}

static void close_coll(sp_result_t *res)
{
    hid_t *ds[] = {&res->rank_times, &res->wrong, &res->samples, &res->results};

    for (size_t i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
        if (*ds[i] >= 0) {
            H5Dclose(*ds[i]);
            *ds[i] = H5I_INVALID_HID;
        }
    }
    if (res->coll >= 0) {
        H5Gclose(res->coll);
        res->coll = H5I_INVALID_HID;
    }
}

sp_status_t sp_result_suspend(sp_result_t *res)
{
    /* every object must be closed, or HDF5 keeps the file open behind H5Fclose */
    sp_result_timeline_close(res);
    close_coll(res);
    res->coll_sealed = 1;
    if (H5Fclose(res->file) < 0) {
        res->file = H5I_INVALID_HID;
        return h5_fail("close for a collective write");
    }
    res->file = H5I_INVALID_HID;
    return SP_OK;
}

sp_status_t sp_result_resume(sp_result_t *res)
{
    res->file = H5Fopen(res->path, H5F_ACC_RDWR, H5P_DEFAULT);
    if (res->file < 0) {
        return h5_fail("reopen after a collective write");
    }
    return SP_OK;
}

sp_status_t sp_result_close(sp_result_t *res, const char *status_str)
{
    sp_status_t status = SP_OK;

    if (res == NULL) {
        return SP_OK;
    }
    sp_result_timeline_close(res);
    if (res->file < 0 && sp_result_resume(res) != SP_OK) {
        free(res);
        return SP_ERR_IO;
    }
    if (status_str != NULL) {
        status = write_attr_str(res->file, "status", status_str);
    }
    close_coll(res);
    H5Tclose(res->row_type);
    H5Tclose(res->sample_type);
    H5Tclose(res->wrong_type);
    if (H5Fclose(res->file) < 0 && status == SP_OK) {
        status = h5_fail("close");
    }
    free(res);
    return status;
}
