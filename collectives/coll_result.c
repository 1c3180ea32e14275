/* /coll tables: compound types built from the row structs, so the file and the structs cannot
 * drift apart; one sweep point appended and flushed at a time through the runtime's generic table
 * helpers; and the same tables read back. */
#include "coll_result.h"

#include <math.h>
#include <stdlib.h>

#include "coll.h"
#include "dtype.h"
#include "result_read.h"

void sp_coll_row_set_stats(sp_coll_row_t *row, const sp_summary_t *s, const sp_seqstats_t *q,
                           int converged)
{
    row->time_us = q->median;
    row->mean_us = s->mean;
    row->stddev_us = s->stddev;
    row->min_us = s->min;
    row->max_us = s->max;
    /* below 100 samples the nearest-rank p99 is the largest sample: it is not a p99 */
    row->p99_us = s->n >= SP_COLL_P99_MIN_SAMPLES ? s->p99 : NAN;
    row->ci_lo_us = q->med_lo;
    row->ci_hi_us = q->med_hi;
    row->ci_rel = sp_seq_rel_halfwidth(q);
    row->lag1 = q->lag1;
    row->n_eff = q->n_eff;
    row->trend_p = q->trend_p;
    row->trend_rel = q->trend_rel;
    row->drift = (int8_t)(q->drift != 0);
    row->converged = (int8_t)(converged && !q->drift);
}

hid_t sp__coll_row_type(void)
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
    F(late_rank, H5T_NATIVE_INT32);
    F(late_margin_us, H5T_NATIVE_DOUBLE);
    F(late_p, H5T_NATIVE_DOUBLE);
    F(lag1, H5T_NATIVE_DOUBLE);
    F(n_eff, H5T_NATIVE_DOUBLE);
    F(trend_p, H5T_NATIVE_DOUBLE);
    F(trend_rel, H5T_NATIVE_DOUBLE);
    F(drift, H5T_NATIVE_INT8);
#undef F
    H5Tclose(op_t);
    H5Tclose(dt_t);
    H5Tclose(red_t);
    return t;
}

hid_t sp__coll_sample_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_coll_sample_t));

    H5Tinsert(t, "time_us", HOFFSET(sp_coll_sample_t, time_us), H5T_NATIVE_DOUBLE);
    H5Tinsert(t, "slowest_rank", HOFFSET(sp_coll_sample_t, slowest_rank), H5T_NATIVE_INT32);
    return t;
}

hid_t sp__coll_wrong_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_coll_wrong_t));

    H5Tinsert(t, "row", HOFFSET(sp_coll_wrong_t, row), H5T_NATIVE_UINT64);
    H5Tinsert(t, "rank", HOFFSET(sp_coll_wrong_t, rank), H5T_NATIVE_INT32);
    H5Tinsert(t, "wrong", HOFFSET(sp_coll_wrong_t, wrong), H5T_NATIVE_UINT64);
    return t;
}

/* /coll and its four empty tables: 64 rows per chunk of results and wrong, 1024 samples, and
 * one row of rank_times (nranks columns) per chunk. */
static sp_status_t create_tables(sp_result_t *res, int nranks)
{
    hid_t t;
    sp_status_t status = sp_result_group_create(res, "/coll");

    if (status == SP_OK) {
        t = sp__coll_row_type();
        status = sp_result_table_create(res, "/coll/results", t, 64);
        H5Tclose(t);
    }
    if (status == SP_OK) {
        t = sp__coll_sample_type();
        status = sp_result_table_create(res, "/coll/samples", t, 1024);
        H5Tclose(t);
    }
    if (status == SP_OK) {
        t = sp__coll_wrong_type();
        status = sp_result_table_create(res, "/coll/wrong", t, 64);
        H5Tclose(t);
    }
    if (status == SP_OK) {
        status = sp_result_matrix_create(res, "/coll/rank_times", H5T_NATIVE_DOUBLE, nranks);
    }
    return status;
}

/* Everything of the point but its row; sets the row's sample offset and the wrong rows' row. */
static sp_status_t append_parts(sp_result_t *res, sp_coll_row_t *row,
                                const sp_coll_sample_t *samples, const double *rank_times_us,
                                int nranks, sp_coll_wrong_t *wrong, size_t nwrong)
{
    uint64_t nrows = 0;
    uint64_t nsamples = 0;
    hid_t t;
    sp_status_t status = sp_result_table_rows(res, "/coll/results", &nrows);

    if (status == SP_OK) {
        status = sp_result_table_rows(res, "/coll/samples", &nsamples);
    }
    if (status != SP_OK) {
        return status;
    }
    row->sample_offset = nsamples;
    for (size_t i = 0; i < nwrong; i++) {
        wrong[i].row = nrows;
    }
    t = sp__coll_sample_type();
    status = sp_result_table_append_noflush(res, "/coll/samples", t, samples, row->samples);
    H5Tclose(t);
    if (status == SP_OK) {
        t = sp__coll_wrong_type();
        status = sp_result_table_append_noflush(res, "/coll/wrong", t, wrong, nwrong);
        H5Tclose(t);
    }
    if (status == SP_OK) {
        status = sp_result_matrix_append(res, "/coll/rank_times", H5T_NATIVE_DOUBLE, rank_times_us,
                                         nranks);
    }
    return status;
}

sp_status_t sp_coll_result_begin(sp_result_t *res, int nranks, const char *method,
                                 const char *issue)
{
    sp_status_t status = SP_OK;

    if (!sp_result_exists(res, "/coll")) {
        status = create_tables(res, nranks);
    }
    if (status == SP_OK) {
        status = sp_result_attr_str(res, "/coll", "method", method);
    }
    if (status == SP_OK) {
        status = sp_result_attr_str(res, "/coll", "issue", issue);
    }
    return status;
}

sp_status_t sp_coll_result_read_issue(hid_t file, char *out, size_t len)
{
    hid_t g = H5Lexists(file, "/coll", H5P_DEFAULT) > 0 ? H5Gopen2(file, "/coll", H5P_DEFAULT)
                                                         : H5I_INVALID_HID;

    if (g < 0 || H5Aexists(g, "issue") <= 0 ||
        sp__result_read_attr(g, "issue", out, len) != SP_OK) {
        snprintf(out, len, "blocking");
    }
    if (g >= 0) {
        H5Gclose(g);
    }
    return SP_OK;
}

void sp_coll_result_read_stream_wait(hid_t file, int64_t *ns_p)
{
    hid_t g = H5Lexists(file, "/coll", H5P_DEFAULT) > 0 ? H5Gopen2(file, "/coll", H5P_DEFAULT)
                                                        : H5I_INVALID_HID;
    hid_t a = g >= 0 && H5Aexists(g, "stream_wait_ns") > 0
                  ? H5Aopen(g, "stream_wait_ns", H5P_DEFAULT)
                  : H5I_INVALID_HID;
    long long v = 0;

    if (a < 0 || H5Aread(a, H5T_NATIVE_LLONG, &v) < 0 || v < 0) {
        v = 0;
    }
    *ns_p = (int64_t)v;
    if (a >= 0) {
        H5Aclose(a);
    }
    if (g >= 0) {
        H5Gclose(g);
    }
}

sp_status_t sp_coll_result_append(sp_result_t *res, sp_coll_row_t *row,
                                  const sp_coll_sample_t *samples, const double *rank_times_us,
                                  int nranks, sp_coll_wrong_t *wrong, size_t nwrong)
{
    hid_t t;
    sp_status_t status = SP_OK;

    if (!sp_result_exists(res, "/coll")) {
        status = create_tables(res, nranks);
    }
    if (status == SP_OK) {
        status = append_parts(res, row, samples, rank_times_us, nranks, wrong, nwrong);
    }
    if (status != SP_OK) {
        return status;
    }
    /* the row goes last: a reader that sees a row also sees its samples and rank times */
    t = sp__coll_row_type();
    status = sp_result_table_append(res, "/coll/results", t, row, 1);
    H5Tclose(t);
    return status;
}

/* 1 when /coll/results of file has a member of that name (a file older than the member has
 * not). */
static int results_have(hid_t file, const char *member)
{
    hid_t ds = H5Dopen2(file, "/coll/results", H5P_DEFAULT);
    hid_t t = ds >= 0 ? H5Dget_type(ds) : H5I_INVALID_HID;
    int have = t >= 0 && H5Tget_member_index(t, member) >= 0;

    if (t >= 0) {
        H5Tclose(t);
    }
    if (ds >= 0) {
        H5Dclose(ds);
    }
    return have;
}

sp_status_t sp_coll_result_read(hid_t file, sp_coll_row_t **rows_p, size_t *nrows_p,
                                sp_coll_wrong_t **wrong_p, size_t *nwrong_p)
{
    hid_t t = sp__coll_row_type();
    void *p = NULL;
    sp_status_t status =
        sp_result_read_table(file, "/coll/results", t, sizeof(sp_coll_row_t), &p, nrows_p);

    H5Tclose(t);
    *rows_p = p;
    /* a file from before the late rank names none, rather than rank 0 */
    if (status == SP_OK && *nrows_p > 0 && !results_have(file, "late_rank")) {
        for (size_t i = 0; i < *nrows_p; i++) {
            (*rows_p)[i].late_rank = -1;
            (*rows_p)[i].late_margin_us = NAN;
            (*rows_p)[i].late_p = NAN;
        }
    }
    *wrong_p = NULL;
    *nwrong_p = 0;
    if (status == SP_OK) {
        t = sp__coll_wrong_type();
        status =
            sp_result_read_table(file, "/coll/wrong", t, sizeof(sp_coll_wrong_t), &p, nwrong_p);
        H5Tclose(t);
        *wrong_p = p;
    }
    return status;
}

sp_status_t sp_coll_result_read_samples(const char *path, const sp_coll_row_t *row,
                                        sp_coll_sample_t **samples_p)
{
    sp_coll_sample_t *s = calloc(row->samples > 0 ? row->samples : 1, sizeof(*s));
    hid_t type = sp__coll_sample_type();
    sp_status_t status;

    if (s == NULL) {
        H5Tclose(type);
        return SP_ERR_NOMEM;
    }
    status = row->samples == 0 ? SP_OK
                               : sp_result_read_slab(path, "/coll/samples", type, 0,
                                                     row->sample_offset, row->samples, 0, s);
    H5Tclose(type);
    if (status != SP_OK) {
        free(s);
        return status;
    }
    *samples_p = s;
    return SP_OK;
}

sp_status_t sp_coll_result_read_rank_times(const char *path, size_t i, int world_size,
                                           double **times_p)
{
    double *t = calloc(world_size > 0 ? (size_t)world_size : 1, sizeof(*t));
    sp_status_t status;

    if (t == NULL) {
        return SP_ERR_NOMEM;
    }
    status = sp_result_read_slab(path, "/coll/rank_times", H5T_NATIVE_DOUBLE, i, 0,
                                 (hsize_t)world_size, 1, t);
    if (status != SP_OK) {
        free(t);
        return status;
    }
    *times_p = t;
    return SP_OK;
}
