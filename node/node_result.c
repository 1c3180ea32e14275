/* /node tables: compound types built from the row structs, so the file and the structs cannot
 * drift apart; rows are appended and flushed as they are produced; and the group read back. */
#include "node_result.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "result_read.h"

const char *const sp_node_kind_names[SP_NODE_KIND_COUNT] = {
    "triad", "d2d", "h2d", "d2h", "gemm_f32", "gemm_f64", "gemm_f16", "gemm_bf16",
};

int sp_node_kind_is_gemm(sp_node_kind_t kind)
{
    return kind >= SP_NODE_GEMM_F32 && kind < SP_NODE_KIND_COUNT;
}

const char *sp_node_kind_units(sp_node_kind_t kind)
{
    return sp_node_kind_is_gemm(kind) ? "GFLOP/s" : "GB/s";
}

hid_t sp__node_row_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_node_row_t));
    hid_t kind_t = sp__result_enum8(sp_node_kind_names, SP_NODE_KIND_COUNT, 0);
    hid_t dt_t = sp__result_enum8(sp_dtype_names, SP_DTYPE_COUNT, 0);

#define F(name, type) H5Tinsert(t, #name, HOFFSET(sp_node_row_t, name), type)
    F(rank, H5T_NATIVE_INT32);
    F(node, H5T_NATIVE_INT32);
    sp__result_insert_str(t, "host", HOFFSET(sp_node_row_t, host), SP_HOST_LEN);
    F(kind, kind_t);
    F(dtype, dt_t);
    F(converged, H5T_NATIVE_INT8);
    F(size, H5T_NATIVE_UINT64);
    F(work, H5T_NATIVE_DOUBLE);
    sp__result_insert_str(t, "units", HOFFSET(sp_node_row_t, units),
                          sizeof(((sp_node_row_t *)0)->units));
    F(samples, H5T_NATIVE_UINT32);
    F(median, H5T_NATIVE_DOUBLE);
    F(ci_lo, H5T_NATIVE_DOUBLE);
    F(ci_hi, H5T_NATIVE_DOUBLE);
    F(ci_rel, H5T_NATIVE_DOUBLE);
    F(mean, H5T_NATIVE_DOUBLE);
    F(stddev, H5T_NATIVE_DOUBLE);
    F(min, H5T_NATIVE_DOUBLE);
    F(max, H5T_NATIVE_DOUBLE);
    F(time_s, H5T_NATIVE_DOUBLE);
    F(sample_offset, H5T_NATIVE_UINT64);
#undef F
    H5Tclose(kind_t);
    H5Tclose(dt_t);
    return t;
}

hid_t sp__node_sample_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_node_sample_t));
    hid_t kind_t = sp__result_enum8(sp_node_kind_names, SP_NODE_KIND_COUNT, 0);

    H5Tinsert(t, "rank", HOFFSET(sp_node_sample_t, rank), H5T_NATIVE_INT32);
    H5Tinsert(t, "kind", HOFFSET(sp_node_sample_t, kind), kind_t);
    H5Tinsert(t, "time_s", HOFFSET(sp_node_sample_t, time_s), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "rate", HOFFSET(sp_node_sample_t, rate), H5T_NATIVE_DOUBLE);
    H5Tclose(kind_t);
    return t;
}

hid_t sp__node_burn_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_node_burn_row_t));

#define F(name, type) H5Tinsert(t, #name, HOFFSET(sp_node_burn_row_t, name), type)
    F(interval, H5T_NATIVE_INT32);
    F(rank, H5T_NATIVE_INT32);
    F(node, H5T_NATIVE_INT32);
    F(t_s, H5T_NATIVE_DOUBLE);
    F(gemms, H5T_NATIVE_UINT32);
    F(rate, H5T_NATIVE_DOUBLE);
    F(checks, H5T_NATIVE_UINT32);
    F(wrong, H5T_NATIVE_UINT64);
#undef F
    return t;
}

hid_t sp__node_outlier_type(void)
{
    static const char *const scopes[] = {"rank", "node"};
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_node_outlier_row_t));
    hid_t scope_t = sp__result_enum8(scopes, 2, 0);
    hid_t kind_t = sp__result_enum8(sp_node_kind_names, SP_NODE_KIND_COUNT, 0);

#define F(name, type) H5Tinsert(t, #name, HOFFSET(sp_node_outlier_row_t, name), type)
    F(scope, scope_t);
    F(kind, kind_t);
    F(id, H5T_NATIVE_INT32);
    sp__result_insert_str(t, "host", HOFFSET(sp_node_outlier_row_t, host), SP_HOST_LEN);
    F(median, H5T_NATIVE_DOUBLE);
    F(cohort, H5T_NATIVE_DOUBLE);
    F(ratio, H5T_NATIVE_DOUBLE);
    F(ratio_lo, H5T_NATIVE_DOUBLE);
    F(ratio_hi, H5T_NATIVE_DOUBLE);
#undef F
    H5Tclose(scope_t);
    H5Tclose(kind_t);
    return t;
}

typedef hid_t (*type_fn)(void);

static const struct {
    const char *path;
    type_fn type;
    size_t chunk;
} tables[] = {
    {"/node/results", sp__node_row_type, 64},
    {"/node/samples", sp__node_sample_type, 1024},
    {"/node/burn", sp__node_burn_type, 256},
    {"/node/outliers", sp__node_outlier_type, 16},
};

sp_status_t sp_node_result_begin(sp_result_t *res, const char *const (*attrs)[2], int n)
{
    sp_status_t status = sp_result_group_create(res, "/node");

    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && status == SP_OK; i++) {
        hid_t t = tables[i].type();
        status = sp_result_table_create(res, tables[i].path, t, tables[i].chunk);
        H5Tclose(t);
    }
    for (int i = 0; i < n && status == SP_OK; i++) {
        status = sp_result_attr_str(res, "/node", attrs[i][0], attrs[i][1]);
    }
    return status;
}

static sp_status_t append(sp_result_t *res, int table, const void *rows, size_t n)
{
    hid_t t = tables[table].type();
    sp_status_t status = sp_result_table_append(res, tables[table].path, t, rows, n);

    H5Tclose(t);
    return status;
}

sp_status_t sp_node_result_rows(sp_result_t *res, const sp_node_row_t *rows, size_t n)
{
    return append(res, 0, rows, n);
}

sp_status_t sp_node_result_samples(sp_result_t *res, const sp_node_sample_t *rows, size_t n)
{
    return append(res, 1, rows, n);
}

sp_status_t sp_node_result_burn(sp_result_t *res, const sp_node_burn_row_t *rows, size_t n)
{
    return append(res, 2, rows, n);
}

sp_status_t sp_node_result_outliers(sp_result_t *res, const sp_node_outlier_row_t *rows,
                                    size_t n)
{
    return append(res, 3, rows, n);
}

sp_status_t sp_node_result_attr(sp_result_t *res, const char *name, const char *value)
{
    return sp_result_attr_str(res, "/node", name, value);
}

/* Table `index` of tables[] into *rows_p, *n_p. */
static sp_status_t read_one(hid_t file, int index, size_t row_size, void **rows_p, size_t *n_p)
{
    hid_t t = tables[index].type();
    sp_status_t status = sp_result_read_table(file, tables[index].path, t, row_size, rows_p, n_p);

    H5Tclose(t);
    return status;
}

sp_status_t sp_node_result_read(hid_t file, sp_node_result_data_t *d)
{
    void *p = NULL;
    hid_t g;
    sp_status_t status;

    memset(d, 0, sizeof(*d));
    if (H5Lexists(file, "/node", H5P_DEFAULT) <= 0) {
        return SP_OK;
    }
    status = read_one(file, 0, sizeof(sp_node_row_t), &p, &d->nrows);
    d->rows = p;
    if (status == SP_OK) {
        status = read_one(file, 2, sizeof(sp_node_burn_row_t), &p, &d->nburn);
        d->burn = p;
    }
    if (status == SP_OK) {
        status = read_one(file, 3, sizeof(sp_node_outlier_row_t), &p, &d->noutliers);
        d->outliers = p;
    }
    g = H5Gopen2(file, "/node", H5P_DEFAULT);
    if (g >= 0) {
        sp__result_read_attr(g, "blas", d->blas, sizeof(d->blas));
        sp__result_read_attr(g, "gpu", d->gpu, sizeof(d->gpu));
        sp__result_read_attr(g, "threshold", d->threshold, sizeof(d->threshold));
        H5Gclose(g);
    }
    d->present = status == SP_OK;
    return status;
}

void sp_node_result_data_free(sp_node_result_data_t *d)
{
    free(d->rows);
    free(d->burn);
    free(d->outliers);
    memset(d, 0, sizeof(*d));
}
