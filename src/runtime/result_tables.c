/* The result file's tables: 1-D chunked, compressed, extendible datasets of compound rows (and
 * 2-D ones that grow by rows), so a run of any length appends without rewriting; the generic
 * helpers the workloads write their own tables through; and /timeline. */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "result_internal.h"

sp_status_t sp__result_h5_fail(const char *what)
{
    sp_error("HDF5: %s: %s", what, sp__result_h5_error().text);
    return SP_ERR_IO;
}

sp_status_t sp__result_attr_str(hid_t obj, const char *name, const char *value)
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
        status = sp__result_h5_fail(name);
    }
    if (attr >= 0) {
        H5Aclose(attr);
    }
    H5Sclose(space);
    H5Tclose(type);
    return status;
}

sp_status_t sp__result_attr_int(hid_t obj, const char *name, long long value)
{
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate2(obj, name, H5T_NATIVE_LLONG, space, H5P_DEFAULT, H5P_DEFAULT);
    sp_status_t status = SP_OK;

    if (attr < 0 || H5Awrite(attr, H5T_NATIVE_LLONG, &value) < 0) {
        status = sp__result_h5_fail(name);
    }
    if (attr >= 0) {
        H5Aclose(attr);
    }
    H5Sclose(space);
    return status;
}

void sp__result_set_filter(hid_t dcpl, sp_h5_filter_t filter)
{
    switch (filter) {
    case SP_H5_FILTER_NONE:
        break;
    case SP_H5_FILTER_DEFLATE4:
        H5Pset_deflate(dcpl, 4);
        break;
    case SP_H5_FILTER_SHUFFLE_DEFLATE1:
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 1);
        break;
    }
}

/* A 1-D chunked extendible dataset of the given type. */
hid_t sp__result_create_table(hid_t loc, const char *name, hid_t type, hsize_t chunk)
{
    return sp__result_create_table_filtered(loc, name, type, chunk, SP_H5_FILTER_DEFAULT);
}

hid_t sp__result_create_table_filtered(hid_t loc, const char *name, hid_t type, hsize_t chunk,
                                       sp_h5_filter_t filter)
{
    hsize_t dims[1] = {0};
    hsize_t maxdims[1] = {H5S_UNLIMITED};
    hid_t space = H5Screate_simple(1, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t ds;

    H5Pset_chunk(dcpl, 1, &chunk);
    sp__result_set_filter(dcpl, filter);
    ds = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (ds >= 0 && sp__result_label(ds, type) != SP_OK) {
        H5Dclose(ds);
        return H5I_INVALID_HID;
    }
    return ds;
}

/* Append n rows to a 1-D table currently holding *cur rows. */
sp_status_t sp__result_append_rows(hid_t ds, hid_t type, uint64_t *cur, const void *data, size_t n)
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
        return sp__result_h5_fail("extend table");
    }
    fspace = H5Dget_space(ds);
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    mspace = H5Screate_simple(1, count, NULL);
    rc = H5Dwrite(ds, type, mspace, fspace, H5P_DEFAULT, data);
    H5Sclose(mspace);
    H5Sclose(fspace);
    if (rc < 0) {
        return sp__result_h5_fail("write table rows");
    }
    *cur += n;
    return SP_OK;
}

/* ---- workload tables, by path ---- */

/* 0 (and logged) while the file is handed to a collective write: nothing may be written then. */
static int writable(const sp_result_t *res, const char *path)
{
    if (res->file < 0) {
        sp_error("internal: %s written while the result file is handed to a collective write",
                 path);
        return 0;
    }
    return 1;
}

/* A table's kept handle, opened (and its row count read) on first use; NULL when the file is
 * suspended (logged) or the table cannot be opened (logged). When every slot is taken the table
 * is still written, through a slot that is closed and reused. */
static sp__result_open_t *open_table(sp_result_t *res, const char *path)
{
    sp__result_open_t *t = NULL;
    hid_t space;
    hsize_t dims[2] = {0, 0};

    if (!writable(res, path)) {
        return NULL;
    }
    for (int i = 0; i < res->nopen; i++) {
        if (strcmp(res->open[i].path, path) == 0) {
            return &res->open[i];
        }
    }
    if (strlen(path) >= sizeof(t->path)) {
        sp_error("internal: table path too long: %s", path);
        return NULL;
    }
    t = &res->open[res->nopen < SP_RESULT_OPEN_MAX ? res->nopen : SP_RESULT_OPEN_MAX - 1];
    if (res->nopen == SP_RESULT_OPEN_MAX) {
        H5Dclose(t->ds);
        res->nopen--;
    }
    t->ds = H5Dopen2(res->file, path, H5P_DEFAULT);
    if (t->ds < 0) {
        sp__result_h5_fail(path);
        return NULL;
    }
    res->nopen++;
    snprintf(t->path, sizeof(t->path), "%s", path);
    space = H5Dget_space(t->ds);
    H5Sget_simple_extent_dims(space, dims, NULL);
    H5Sclose(space);
    t->nrows = (uint64_t)dims[0];
    return t;
}

void sp__result_close_open(sp_result_t *res)
{
    for (int i = 0; i < res->nopen; i++) {
        H5Dclose(res->open[i].ds);
    }
    res->nopen = 0;
}

sp_status_t sp_result_group_create(sp_result_t *res, const char *path)
{
    hid_t lcpl;
    hid_t group;

    if (!writable(res, path)) {
        return SP_ERR_INVALID;
    }
    if (H5Lexists(res->file, path, H5P_DEFAULT) > 0) {
        return SP_OK;
    }
    lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    group = H5Gcreate2(res->file, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    if (group < 0) {
        return sp__result_h5_fail(path);
    }
    H5Gclose(group);
    return SP_OK;
}

int sp_result_exists(sp_result_t *res, const char *path)
{
    return res->file >= 0 && H5Lexists(res->file, path, H5P_DEFAULT) > 0;
}

sp_status_t sp_result_table_create(sp_result_t *res, const char *path, hid_t type,
                                   size_t chunk_rows)
{
    hid_t ds;

    if (!writable(res, path)) {
        return SP_ERR_INVALID;
    }
    ds = sp__result_create_table(res->file, path, type, (hsize_t)(chunk_rows > 0 ? chunk_rows : 1));
    if (ds < 0) {
        return sp__result_h5_fail(path);
    }
    H5Dclose(ds);
    return SP_OK;
}

sp_status_t sp_result_table_append_noflush(sp_result_t *res, const char *path, hid_t type,
                                           const void *rows, size_t n)
{
    sp__result_open_t *t = open_table(res, path);

    if (t == NULL) {
        return res->file < 0 ? SP_ERR_INVALID : SP_ERR_IO;
    }
    return sp__result_append_rows(t->ds, type, &t->nrows, rows, n);
}

sp_status_t sp_result_table_append(sp_result_t *res, const char *path, hid_t type, const void *rows,
                                   size_t n)
{
    sp_status_t status = sp_result_table_append_noflush(res, path, type, rows, n);

    return status == SP_OK ? sp_result_flush(res) : status;
}

sp_status_t sp_result_table_rows(sp_result_t *res, const char *path, uint64_t *n_p)
{
    sp__result_open_t *t = open_table(res, path);

    if (t == NULL) {
        return res->file < 0 ? SP_ERR_INVALID : SP_ERR_IO;
    }
    *n_p = t->nrows;
    return SP_OK;
}

sp_status_t sp_result_matrix_create(sp_result_t *res, const char *path, hid_t type, int ncols)
{
    hsize_t dims[2] = {0, (hsize_t)ncols};
    hsize_t maxdims[2] = {H5S_UNLIMITED, (hsize_t)ncols};
    hsize_t chunk[2] = {1, (hsize_t)ncols};
    size_t elt = H5Tget_size(type);
    hid_t space;
    hid_t dcpl;
    hid_t ds;

    if (!writable(res, path)) {
        return SP_ERR_INVALID;
    }
    space = H5Screate_simple(2, dims, maxdims);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    /* one row per chunk: rows are written one at a time, and a reader of one row reads one */
    if (elt > 0 && chunk[1] * elt > (1u << 20)) {
        chunk[1] = (1u << 20) / elt;
    }
    H5Pset_chunk(dcpl, 2, chunk);
    sp__result_set_filter(dcpl, SP_H5_FILTER_DEFAULT);
    ds = H5Dcreate2(res->file, path, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (ds < 0) {
        return sp__result_h5_fail(path);
    }
    if (sp__result_label(ds, type) != SP_OK) {
        H5Dclose(ds);
        return SP_ERR_IO;
    }
    H5Dclose(ds);
    return SP_OK;
}

sp_status_t sp_result_matrix_append(sp_result_t *res, const char *path, hid_t type, const void *row,
                                    int ncols)
{
    sp__result_open_t *t = open_table(res, path);
    hsize_t dims[2] = {0, 0};
    hsize_t start[2];
    hsize_t count[2];
    hid_t fspace;
    hid_t mspace;
    herr_t rc;

    if (t == NULL) {
        return res->file < 0 ? SP_ERR_INVALID : SP_ERR_IO;
    }
    fspace = H5Dget_space(t->ds);
    H5Sget_simple_extent_dims(fspace, dims, NULL);
    H5Sclose(fspace);
    if (dims[1] != (hsize_t)ncols) {
        sp_error("internal: %s has %llu columns, not %d", path, (unsigned long long)dims[1], ncols);
        return SP_ERR_INVALID;
    }
    start[0] = t->nrows;
    start[1] = 0;
    count[0] = 1;
    count[1] = dims[1];
    dims[0] = t->nrows + 1;
    if (H5Dset_extent(t->ds, dims) < 0) {
        return sp__result_h5_fail(path);
    }
    fspace = H5Dget_space(t->ds);
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    mspace = H5Screate_simple(2, count, NULL);
    rc = H5Dwrite(t->ds, type, mspace, fspace, H5P_DEFAULT, row);
    H5Sclose(mspace);
    H5Sclose(fspace);
    if (rc < 0) {
        return sp__result_h5_fail(path);
    }
    t->nrows++;
    return SP_OK;
}

static sp_status_t attr_at(sp_result_t *res, const char *path, const char *name, const char *str,
                           long long value)
{
    hid_t obj;
    sp_status_t status;

    if (!writable(res, path)) {
        return SP_ERR_INVALID;
    }
    obj = H5Oopen(res->file, path, H5P_DEFAULT);
    if (obj < 0) {
        return sp__result_h5_fail(path);
    }
    status =
        str != NULL ? sp__result_attr_str(obj, name, str) : sp__result_attr_int(obj, name, value);
    H5Oclose(obj);
    return status;
}

sp_status_t sp_result_attr_str(sp_result_t *res, const char *path, const char *name,
                               const char *value)
{
    return attr_at(res, path, name, value, 0);
}

sp_status_t sp_result_attr_int(sp_result_t *res, const char *path, const char *name,
                               long long value)
{
    return attr_at(res, path, name, NULL, value);
}

sp_status_t sp_result_flush(sp_result_t *res)
{
    if (!writable(res, "flush")) {
        return SP_ERR_INVALID;
    }
    if (H5Fflush(res->file, H5F_SCOPE_GLOBAL) < 0) {
        return sp__result_h5_fail("flush");
    }
    return SP_OK;
}

/* ---- /timeline ---- */

sp_status_t sp_result_timeline_open(sp_result_t *res, int64_t err_ns)
{
    hid_t group = H5Gcreate2(res->file, "timeline", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    sp_status_t status = SP_OK;

    if (group < 0) {
        return sp__result_h5_fail("create /timeline");
    }
    res->tl_event_type = sp__result_event_type(res->event_ops, res->nevent_ops);
    res->tl_rank_type = sp__result_tl_rank_type();
    res->tl_events = sp__result_create_table_filtered(group, "events", res->tl_event_type,
                                                      SP_TL_CHUNK_EVENTS, res->tl_filter);
    res->tl_ranks = sp__result_create_table(group, "ranks", res->tl_rank_type, 1024);
    if (res->tl_events < 0 || res->tl_ranks < 0) {
        status = sp__result_h5_fail("create /timeline tables");
    }
    if (status == SP_OK) {
        status = sp__result_attr_int(group, "clock_err_ns", err_ns);
    }
    if (status == SP_OK) {
        status =
            sp__result_attr_str(group, "time_base", "rank 0's CLOCK_MONOTONIC, ns (see /clock)");
    }
    H5Gclose(group);
    return status;
}

void sp_result_set_timeline_filter(sp_result_t *res, sp_h5_filter_t filter)
{
    res->tl_filter = filter;
}

void sp_result_set_timeline_producers(sp_result_t *res, int producers)
{
    res->tl_producers = producers;
}

int sp_result_timeline_precompressed(const sp_result_t *res)
{
    return res->tl_producers && res->tl_filter == SP_H5_FILTER_SHUFFLE_DEFLATE1;
}

sp_status_t sp_result_timeline_write_chunk(sp_result_t *res, const void *data, size_t nbytes,
                                           size_t rows)
{
    hsize_t offset[1] = {res->tl_nevents};
    hsize_t dims[1] = {res->tl_nevents + rows};

    if (res->tl_events < 0 || res->tl_nevents % SP_TL_CHUNK_EVENTS != 0 || rows == 0 ||
        rows > SP_TL_CHUNK_EVENTS) {
        sp_error("internal: a compressed chunk of /timeline/events at row %llu",
                 (unsigned long long)res->tl_nevents);
        return SP_ERR_INVALID;
    }
    /* a full chunk lies wholly inside the new extent; a last partial one is stored whole, as
     * HDF5 stores an edge chunk, and readers take only the rows inside the extent */
    if (H5Dset_extent(res->tl_events, dims) < 0 ||
        H5Dwrite_chunk(res->tl_events, H5P_DEFAULT, 0, offset, nbytes, data) < 0) {
        return sp__result_h5_fail("/timeline/events");
    }
    res->tl_nevents += rows;
    return SP_OK;
}

sp_status_t sp_result_timeline_append(sp_result_t *res, const sp_event_rec_t *events, size_t n)
{
    return sp__result_append_rows(res->tl_events, res->tl_event_type, &res->tl_nevents, events, n);
}

uint64_t sp_result_timeline_count(const sp_result_t *res)
{
    return res->tl_nevents;
}

sp_status_t sp_result_timeline_rank(sp_result_t *res, const sp_tl_rank_t *row)
{
    return sp__result_append_rows(res->tl_ranks, res->tl_rank_type, &res->tl_nranks, row, 1);
}

sp_status_t sp_result_timeline_close(sp_result_t *res)
{
    if (res->tl_events >= 0) {
        H5Dclose(res->tl_events);
        H5Dclose(res->tl_ranks);
        H5Tclose(res->tl_event_type);
        H5Tclose(res->tl_rank_type);
        res->tl_events = res->tl_ranks = res->tl_event_type = res->tl_rank_type = H5I_INVALID_HID;
    }
    if (H5Fflush(res->file, H5F_SCOPE_GLOBAL) < 0) {
        return sp__result_h5_fail("flush");
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
        return sp__result_h5_fail("open /timeline");
    }
    /* the rank-0 path wrote these when it created the table; a collective write did not */
    if (H5Aexists(group, "clock_err_ns") <= 0) {
        status = sp__result_attr_int(group, "clock_err_ns", err_ns);
    }
    if (status == SP_OK) {
        status =
            sp__result_attr_str(group, "time_base", "rank 0's CLOCK_MONOTONIC, ns (see /clock)");
    }
    if (status == SP_OK) {
        status = sp__result_attr_str(group, "io", io);
    }
    if (status == SP_OK) {
        status = sp__result_attr_int(group, "events", (long long)events);
    }
    if (status == SP_OK) {
        status = sp__result_attr_int(group, "dropped", (long long)dropped);
    }
    if (status == SP_OK) {
        snprintf(buf, sizeof(buf), "%.0f", seconds > 0.0 ? (double)events / seconds : 0.0);
        status = sp__result_attr_str(group, "aggregation_events_per_s", buf);
    }
    if (status == SP_OK) {
        status = sp__result_attr_int(group, "aggregation_rank0_peak_rss_kib", peak_rss_kib);
    }
    H5Gclose(group);
    return status;
}
