/* /proxy tables: compound types built from the row structs, so the file and the structs cannot
 * drift apart; written through the runtime's generic table helpers, one step flushed at a time;
 * and the same group read back. */
#include "proxy_result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result_read.h"

hid_t sp__proxy_rank_type(void)
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
    PD(idle_ms);
    PD(tp_excl_ms);
    PD(dp_excl_ms);
    PD(pp_excl_ms);
    PD(pred_step_ms);
    PD(pred_busy_ms);
    PD(pred_idle_ms);
    PD(pred_tp_excl_ms);
    PD(pred_dp_excl_ms);
    PD(pred_pp_excl_ms);
#undef PI
#undef PD
    return t;
}

hid_t sp__proxy_info_type(void)
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
    PF(compute, H5T_NATIVE_INT32);
    PF(compute_threads, H5T_NATIVE_INT32);
    PF(max_inflight, H5T_NATIVE_INT32);
    PF(max_inflight_total, H5T_NATIVE_INT32);
    PF(dist_opt, H5T_NATIVE_INT32);
    PF(overlap_param_gather, H5T_NATIVE_INT32);
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

static sp_status_t begin_tables(sp_result_t *res, const sp_proxy_info_t *info)
{
    hid_t itype = sp__proxy_info_type();
    hid_t rtype = sp__proxy_rank_type();
    sp_status_t status = sp_result_group_create(res, "/proxy");

    if (status == SP_OK) {
        status = sp_result_table_create(res, "/proxy/info", itype, 1);
    }
    if (status == SP_OK) {
        status = sp_result_table_append_noflush(res, "/proxy/info", itype, info, 1);
    }
    if (status == SP_OK) {
        status = sp_result_table_create(res, "/proxy/ranks", rtype, 1024);
    }
    H5Tclose(itype);
    H5Tclose(rtype);
    return status;
}

sp_status_t sp_proxy_result_begin(sp_result_t *res, const sp_proxy_info_t *info,
                                  const char *schedule, const char *model, const char *dp_mode,
                                  const char *dtype, const char *grad_reduce_dtype)
{
    sp_status_t status = begin_tables(res, info);

    if (status == SP_OK) {
        status = sp_result_attr_str(res, "/proxy", "schedule", schedule);
    }
    if (status == SP_OK) {
        status = sp_result_attr_str(res, "/proxy", "model", model);
    }
    if (status == SP_OK) {
        status = sp_result_attr_str(res, "/proxy", "dp_mode", dp_mode);
    }
    if (status == SP_OK) {
        status = sp_result_attr_str(res, "/proxy", "dtype", dtype);
    }
    if (status == SP_OK) {
        status = sp_result_attr_str(res, "/proxy", "grad_reduce_dtype", grad_reduce_dtype);
    }
    return status == SP_OK ? sp_result_flush(res) : status;
}

sp_status_t sp_proxy_result_append(sp_result_t *res, const sp_proxy_rank_row_t *rows, size_t n)
{
    hid_t type = sp__proxy_rank_type();
    sp_status_t status = sp_result_table_append(res, "/proxy/ranks", type, rows, n);

    H5Tclose(type);
    return status;
}

sp_status_t sp_proxy_result_note_sharing(sp_result_t *res, const char *warning)
{
    return sp_result_attr_str(res, "/proxy", "sharing_warning", warning);
}

sp_status_t sp_proxy_result_note_compute(sp_result_t *res, const char *desc)
{
    return sp_result_attr_str(res, "/proxy", "compute", desc);
}

sp_status_t sp_proxy_result_note_inflight(sp_result_t *res, int peak_lane, int peak_total,
                                          int64_t held)
{
    sp_status_t status = sp_result_attr_int(res, "/proxy", "inflight_peak_lane", peak_lane);

    if (status == SP_OK) {
        status = sp_result_attr_int(res, "/proxy", "inflight_peak_total", peak_total);
    }
    return status == SP_OK ? sp_result_attr_int(res, "/proxy", "inflight_held", held) : status;
}

sp_status_t sp_proxy_result_mark_predicted(sp_result_t *res, const char *source)
{
    sp_status_t status = sp_result_attr_int(res, "/proxy", "predicted", 1);

    return status == SP_OK ? sp_result_attr_str(res, "/proxy", "predicted_source", source) : status;
}

/* Whether the table's stored row type has the member (files of older versions lack the split
 * of the non-compute time and the prediction: those fields read as NaN). */
static int has_member(hid_t file, const char *table, const char *member)
{
    hid_t d = H5Dopen2(file, table, H5P_DEFAULT);
    hid_t t = d >= 0 ? H5Dget_type(d) : -1;
    int yes = t >= 0 && H5Tget_member_index(t, member) >= 0;

    if (t >= 0) {
        H5Tclose(t);
    }
    if (d >= 0) {
        H5Dclose(d);
    }
    return yes;
}

static sp_status_t read_tables(hid_t file, sp_proxy_result_data_t *d)
{
    hid_t type = sp__proxy_info_type();
    void *p = NULL;
    size_t ninfo = 0;
    sp_status_t status =
        sp_result_read_table(file, "/proxy/info", type, sizeof(sp_proxy_info_t), &p, &ninfo);

    H5Tclose(type);
    if (status == SP_OK && ninfo == 1) {
        d->info = *(sp_proxy_info_t *)p;
        d->has_info = 1;
        if (!has_member(file, "/proxy/info", "overlap_param_gather")) {
            d->info.overlap_param_gather = d->info.overlap; /* one --overlap covered both */
        }
    }
    free(p);
    p = NULL;
    if (status == SP_OK) {
        type = sp__proxy_rank_type();
        status = sp_result_read_table(file, "/proxy/ranks", type, sizeof(sp_proxy_rank_row_t), &p,
                                      &d->nrows);
        H5Tclose(type);
        d->rows = p;
    }
    if (status == SP_OK && d->nrows > 0 && !has_member(file, "/proxy/ranks", "idle_ms")) {
        for (size_t i = 0; i < d->nrows; i++) {
            sp_proxy_rank_row_t *r = &d->rows[i];
            r->idle_ms = r->tp_excl_ms = r->dp_excl_ms = r->pp_excl_ms = NAN;
        }
    }
    if (status == SP_OK && d->nrows > 0 && !has_member(file, "/proxy/ranks", "pred_step_ms")) {
        for (size_t i = 0; i < d->nrows; i++) {
            sp_proxy_rank_row_t *r = &d->rows[i];
            r->pred_step_ms = r->pred_busy_ms = r->pred_idle_ms = NAN;
            r->pred_tp_excl_ms = r->pred_dp_excl_ms = r->pred_pp_excl_ms = NAN;
        }
    }
    return status;
}

sp_status_t sp_proxy_result_read(hid_t file, sp_proxy_result_data_t *d)
{
    char buf[64];
    hid_t g;
    sp_status_t status;

    memset(d, 0, sizeof(*d));
    if (H5Lexists(file, "/proxy", H5P_DEFAULT) <= 0) {
        return SP_OK;
    }
    status = read_tables(file, d);
    g = H5Gopen2(file, "/proxy", H5P_DEFAULT);
    if (g < 0) {
        return SP_ERR_FORMAT;
    }
    sp__result_read_attr(g, "schedule", d->schedule, sizeof(d->schedule));
    sp__result_read_attr(g, "model", d->model, sizeof(d->model));
    sp__result_read_attr(g, "dp_mode", d->dp_mode, sizeof(d->dp_mode));
    sp__result_read_attr(g, "grad_reduce_dtype", d->grad_reduce_dtype,
                         sizeof(d->grad_reduce_dtype)); /* absent before issue 20: "" */
    sp__result_read_attr(g, "sharing_warning", d->sharing_warning, sizeof(d->sharing_warning));
    sp__result_read_attr(g, "compute", d->compute, sizeof(d->compute)); /* "" before it */
    if (sp__result_read_attr(g, "predicted", buf, sizeof(buf)) == SP_OK) {
        d->predicted = strtol(buf, NULL, 10) != 0;
        sp__result_read_attr(g, "predicted_source", d->predicted_source,
                             sizeof(d->predicted_source));
    }
    H5Gclose(g);
    return status;
}
