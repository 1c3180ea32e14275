/* Private to the result writer (result.c, result_tables.c): the handle's layout and the helpers
 * its files share. Nothing outside src/runtime/result*.c includes this. */
#ifndef SP_RESULT_INTERNAL_H
#define SP_RESULT_INTERNAL_H

#include <hdf5.h>
#include <stdint.h>

#include "result.h"

/* Open datasets of workload tables, kept between appends (closed on suspend and close). */
#define SP_RESULT_OPEN_MAX 8

typedef struct {
    char path[128];
    hid_t ds;
    uint64_t nrows;
} sp__result_open_t;

struct sp_result {
    char path[4096];
    hid_t file;      /* H5I_INVALID_HID while suspended */
    hid_t tl_events; /* /timeline/events, while a timeline is being written */
    hid_t tl_ranks;
    hid_t tl_event_type;
    hid_t tl_rank_type;
    const char *const *event_ops; /* sp_result_info_t's, not owned */
    int nevent_ops;
    uint64_t tl_nevents;
    uint64_t tl_nranks;
    sp_h5_filter_t tl_filter; /* of /timeline/events (sp_result_set_timeline_filter) */
    int tl_producers;         /* sp_result_set_timeline_producers */
    sp__result_open_t open[SP_RESULT_OPEN_MAX];
    int nopen;
};

/* Log the HDF5 error stack's innermost message for `what`, once, here; SP_ERR_IO. */
sp_status_t sp__result_h5_fail(const char *what);

/* The `description` of dataset ds (by its path), and `units`: a JSON object of every column's
 * units for a compound type, one string for an array (result_labels.c). */
sp_status_t sp__result_label(hid_t ds, hid_t type);

/* Scalar attributes of obj (replaced when present). */
sp_status_t sp__result_attr_str(hid_t obj, const char *name, const char *value);
sp_status_t sp__result_attr_int(hid_t obj, const char *name, long long value);

/* A 1-D chunked (chunk rows), compressed, extendible dataset of type at loc/name, empty. */
hid_t sp__result_create_table(hid_t loc, const char *name, hid_t type, hsize_t chunk);
/* The same with the given filter instead of SP_H5_FILTER_DEFAULT. */
hid_t sp__result_create_table_filtered(hid_t loc, const char *name, hid_t type, hsize_t chunk,
                                       sp_h5_filter_t filter);

/* Append n rows to a 1-D table holding *cur rows; *cur += n on success. */
sp_status_t sp__result_append_rows(hid_t ds, hid_t type, uint64_t *cur, const void *data, size_t n);

/* Close every kept dataset handle (before suspend and close). */
void sp__result_close_open(sp_result_t *res);

#endif
