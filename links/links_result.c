/* /links tables: compound types built from the row structs, so the file and the structs cannot
 * drift apart; rows appended and flushed as they are produced; and the group read back. */
#include "links_result.h"

#include <stdlib.h>
#include <string.h>

#include "result_read.h"

const char *const sp_links_metric_names[SP_LINKS_METRIC_COUNT] = {"bandwidth", "latency"};

const char *sp_links_metric_units(sp_links_metric_t m)
{
    return m == SP_LINKS_BW ? "GB/s" : "us";
}

int sp_links_row_better(const sp_links_pair_row_t *a, const sp_links_pair_row_t *b)
{
    return a->median_us < b->median_us;
}

hid_t sp__links_unit_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_links_unit_row_t));

    H5Tinsert(t, "unit", HOFFSET(sp_links_unit_row_t, unit), H5T_NATIVE_INT32);
    H5Tinsert(t, "rank", HOFFSET(sp_links_unit_row_t, rank), H5T_NATIVE_INT32);
    H5Tinsert(t, "node", HOFFSET(sp_links_unit_row_t, node), H5T_NATIVE_INT32);
    H5Tinsert(t, "rail", HOFFSET(sp_links_unit_row_t, rail), H5T_NATIVE_INT32);
    sp__result_insert_str(t, "host", HOFFSET(sp_links_unit_row_t, host), SP_HOST_LEN);
    return t;
}

hid_t sp__links_pair_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_links_pair_row_t));
    hid_t metric_t = sp__result_enum8(sp_links_metric_names, SP_LINKS_METRIC_COUNT, 0);

#define F(name, type) H5Tinsert(t, #name, HOFFSET(sp_links_pair_row_t, name), type)
    F(metric, metric_t);
    F(converged, H5T_NATIVE_INT8);
    F(src, H5T_NATIVE_INT32);
    F(dst, H5T_NATIVE_INT32);
    F(round, H5T_NATIVE_INT32);
    F(pass, H5T_NATIVE_INT8);
    F(bytes, H5T_NATIVE_UINT64);
    F(batch, H5T_NATIVE_UINT32);
    F(samples, H5T_NATIVE_UINT32);
    F(median_us, H5T_NATIVE_DOUBLE);
    F(ci_lo_us, H5T_NATIVE_DOUBLE);
    F(ci_hi_us, H5T_NATIVE_DOUBLE);
    F(min_us, H5T_NATIVE_DOUBLE);
    F(max_us, H5T_NATIVE_DOUBLE);
    F(value, H5T_NATIVE_DOUBLE);
    F(value_lo, H5T_NATIVE_DOUBLE);
    F(value_hi, H5T_NATIVE_DOUBLE);
    F(sample_offset, H5T_NATIVE_UINT64);
#undef F
    H5Tclose(metric_t);
    return t;
}

hid_t sp__links_sample_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_links_sample_row_t));

    H5Tinsert(t, "time_us", HOFFSET(sp_links_sample_row_t, time_us), H5T_NATIVE_DOUBLE);
    return t;
}

hid_t sp__links_outlier_type(void)
{
    static const char *const kinds[] = {"node", "link"};
    static const char *const sides[] = {"both", "send", "recv"};
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_links_outlier_row_t));
    hid_t metric_t = sp__result_enum8(sp_links_metric_names, SP_LINKS_METRIC_COUNT, 0);
    hid_t kind_t = sp__result_enum8(kinds, 2, 0);
    hid_t side_t = sp__result_enum8(sides, 3, 0);

#define F(name, type) H5Tinsert(t, #name, HOFFSET(sp_links_outlier_row_t, name), type)
    F(metric, metric_t);
    F(kind, kind_t);
    F(side, side_t);
    F(a, H5T_NATIVE_INT32);
    F(b, H5T_NATIVE_INT32);
    sp__result_insert_str(t, "host_a", HOFFSET(sp_links_outlier_row_t, host_a), SP_HOST_LEN);
    sp__result_insert_str(t, "host_b", HOFFSET(sp_links_outlier_row_t, host_b), SP_HOST_LEN);
    F(ratio, H5T_NATIVE_DOUBLE);
    F(ratio_lo, H5T_NATIVE_DOUBLE);
    F(ratio_hi, H5T_NATIVE_DOUBLE);
    F(cohort, H5T_NATIVE_DOUBLE);
    F(nslow, H5T_NATIVE_INT32);
    F(nlinks, H5T_NATIVE_INT32);
    F(rail, H5T_NATIVE_INT32);
#undef F
    H5Tclose(metric_t);
    H5Tclose(kind_t);
    H5Tclose(side_t);
    return t;
}

hid_t sp__links_screen_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(sp_links_bisect_step_t));
    hid_t size_t_ = H5T_NATIVE_UINT64;

    _Static_assert(sizeof(size_t) == 8, "samples is stored as uint64");
#define F(name, type) H5Tinsert(t, #name, HOFFSET(sp_links_bisect_step_t, name), type)
    F(level, H5T_NATIVE_INT);
    F(attempt, H5T_NATIVE_INT);
    F(a_lo, H5T_NATIVE_INT);
    F(a_hi, H5T_NATIVE_INT);
    F(b_lo, H5T_NATIVE_INT);
    F(b_hi, H5T_NATIVE_INT);
    F(group_size, H5T_NATIVE_INT);
    F(samples, size_t_);
    F(ratio, H5T_NATIVE_DOUBLE);
    F(ratio_lo, H5T_NATIVE_DOUBLE);
    F(ratio_hi, H5T_NATIVE_DOUBLE);
    F(ta_median, H5T_NATIVE_DOUBLE);
    F(tb_median, H5T_NATIVE_DOUBLE);
    F(decision, H5T_NATIVE_INT);
#undef F
    return t;
}

typedef hid_t (*type_fn)(void);

enum { T_UNITS, T_PAIRS, T_SAMPLES, T_OUTLIERS, T_SCREEN };

static const struct {
    const char *path;
    type_fn type;
    size_t chunk;
} tables[] = {
    [T_UNITS] = {"/links/units", sp__links_unit_type, 64},
    [T_PAIRS] = {"/links/pairs", sp__links_pair_type, 256},
    [T_SAMPLES] = {"/links/samples", sp__links_sample_type, 4096},
    [T_OUTLIERS] = {"/links/outliers", sp__links_outlier_type, 16},
    [T_SCREEN] = {"/links/screen", sp__links_screen_type, 16},
};

sp_status_t sp_links_result_begin(sp_result_t *res, const char *const (*attrs)[2], int n)
{
    sp_status_t status = sp_result_group_create(res, "/links");

    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && status == SP_OK; i++) {
        hid_t t = tables[i].type();
        status = sp_result_table_create(res, tables[i].path, t, tables[i].chunk);
        H5Tclose(t);
    }
    for (int i = 0; i < n && status == SP_OK; i++) {
        status = sp_result_attr_str(res, "/links", attrs[i][0], attrs[i][1]);
    }
    return status;
}

static sp_status_t append(sp_result_t *res, int table, const void *rows, size_t n, int flush)
{
    hid_t t = tables[table].type();
    sp_status_t status =
        flush ? sp_result_table_append(res, tables[table].path, t, rows, n)
              : sp_result_table_append_noflush(res, tables[table].path, t, rows, n);

    H5Tclose(t);
    return status;
}

sp_status_t sp_links_result_units(sp_result_t *res, const sp_links_unit_row_t *rows, size_t n)
{
    return append(res, T_UNITS, rows, n, 1);
}

sp_status_t sp_links_result_pairs(sp_result_t *res, const sp_links_pair_row_t *rows, size_t n,
                                  const sp_links_sample_row_t *samples, size_t nsamples)
{
    /* samples first: a reader that sees a row also sees its samples */
    sp_status_t status = append(res, T_SAMPLES, samples, nsamples, 0);

    return status == SP_OK ? append(res, T_PAIRS, rows, n, 1) : status;
}

sp_status_t sp_links_result_outliers(sp_result_t *res, const sp_links_outlier_row_t *rows,
                                     size_t n)
{
    return append(res, T_OUTLIERS, rows, n, 1);
}

sp_status_t sp_links_result_screen(sp_result_t *res, const sp_links_bisect_step_t *rows,
                                   size_t n)
{
    return append(res, T_SCREEN, rows, n, 1);
}

sp_status_t sp_links_result_matrix(sp_result_t *res, const char *name, const double *m, int n)
{
    char path[128];
    sp_status_t status;

    snprintf(path, sizeof(path), "/links/%s", name);
    status = sp_result_matrix_create(res, path, H5T_NATIVE_DOUBLE, n);
    for (int i = 0; i < n && status == SP_OK; i++) {
        status = sp_result_matrix_append(res, path, H5T_NATIVE_DOUBLE, m + (size_t)i * n, n);
    }
    return status == SP_OK ? sp_result_flush(res) : status;
}

sp_status_t sp_links_result_attr(sp_result_t *res, const char *name, const char *value)
{
    return sp_result_attr_str(res, "/links", name, value);
}

static sp_status_t read_one(hid_t file, int index, size_t row_size, void **rows_p, size_t *n_p)
{
    hid_t t = tables[index].type();
    sp_status_t status = sp_result_read_table(file, tables[index].path, t, row_size, rows_p, n_p);

    H5Tclose(t);
    return status;
}

sp_status_t sp_links_result_read(hid_t file, sp_links_result_data_t *d)
{
    void *p[5] = {NULL};
    size_t *counts[5] = {&d->nunits, &d->npairs, &d->nsamples, &d->noutliers, &d->nscreen};
    const size_t sizes[5] = {sizeof(sp_links_unit_row_t), sizeof(sp_links_pair_row_t),
                             sizeof(sp_links_sample_row_t), sizeof(sp_links_outlier_row_t),
                             sizeof(sp_links_bisect_step_t)};
    sp_status_t status = SP_OK;
    hid_t g;

    memset(d, 0, sizeof(*d));
    if (H5Lexists(file, "/links", H5P_DEFAULT) <= 0) {
        return SP_OK;
    }
    for (int i = 0; i < 5 && status == SP_OK; i++) {
        status = read_one(file, i, sizes[i], &p[i], counts[i]);
    }
    d->units = p[T_UNITS];
    d->pairs = p[T_PAIRS];
    d->samples = p[T_SAMPLES];
    d->outliers = p[T_OUTLIERS];
    d->screen = p[T_SCREEN];
    g = H5Gopen2(file, "/links", H5P_DEFAULT);
    if (g >= 0) {
        sp__result_read_attr(g, "mode", d->mode, sizeof(d->mode));
        sp__result_read_attr(g, "per", d->per, sizeof(d->per));
        sp__result_read_attr(g, "threshold", d->threshold, sizeof(d->threshold));
        sp__result_read_attr(g, "rounds", d->rounds, sizeof(d->rounds));
        sp__result_read_attr(g, "screen_verdict", d->screen_verdict, sizeof(d->screen_verdict));
        H5Gclose(g);
    }
    d->present = status == SP_OK;
    return status;
}

void sp_links_result_data_free(sp_links_result_data_t *d)
{
    free(d->units);
    free(d->pairs);
    free(d->samples);
    free(d->outliers);
    free(d->screen);
    memset(d, 0, sizeof(*d));
}
