/* Timeline reader: the event and rank types are the writer's own (src/runtime/result_types.c), so the reader and
 * the writer cannot drift apart; HDF5 converts enum columns by name. */
#include "tlread.h"

#include "reader.h"
#include "reader_probe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "coll.h"

/* Events per read when only a column or two are needed (sp_tlread_span). */
#define SPAN_BATCH 8192

/* The writer's chunks are 8192 events (~640 KiB); room for a few of them, so a reader going
 * rank by rank with reads that straddle chunk boundaries does not decompress a chunk twice. */
#define EVENTS_CACHE_BYTES (8u << 20)
#define EVENTS_CACHE_SLOTS 1031

typedef struct {
    int64_t start_ns;
    int64_t end_ns;
} span_rec_t;

static sp_status_t fail(sp_tlread_t *tl, sp_status_t status, const char *what, const char *detail)
{
    snprintf(tl->why, sizeof(tl->why), "%s%s%s", what, detail != NULL ? ": " : "",
             detail != NULL ? detail : "");
    return status;
}

static int rank_cmp(const void *a, const void *b)
{
    const sp_tl_rank_t *x = a;
    const sp_tl_rank_t *y = b;

    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* A compound memory type with only the two time columns: HDF5 reads a subset of the file's
 * members by name, so a span scan moves 16 bytes per event instead of the whole row. */
static hid_t span_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(span_rec_t));

    H5Tinsert(t, "start_ns", HOFFSET(span_rec_t, start_ns), H5T_NATIVE_INT64);
    H5Tinsert(t, "end_ns", HOFFSET(span_rec_t, end_ns), H5T_NATIVE_INT64);
    return t;
}

/* The shared table reader, with this reader's error contract: a missing table is damage. */
static sp_status_t read_table(sp_tlread_t *tl, const char *name, hid_t type, size_t row_size,
                              void **rows_p, size_t *n_p)
{
    sp_status_t status;

    if (H5Lexists(tl->file_, name, H5P_DEFAULT) <= 0) {
        return fail(tl, SP_ERR_FORMAT, name, "missing");
    }
    status = sp_reader_read_table(tl->file_, name, type, row_size, rows_p, n_p);
    if (status != SP_OK) {
        return fail(tl, status, name,
                    status == SP_ERR_NOMEM ? "out of memory" : sp__result_h5_error().text);
    }
    return SP_OK;
}

/* Check that path is a scaleprobe result file of this schema and open it. */
static sp_status_t open_file(sp_tlread_t *tl, const char *path)
{
    char why[256];
    /* the probe first: HDF5 may crash opening a corrupt file too */
    sp_status_t status = sp__reader_probe(path, why, sizeof(why));

    if (status == SP_OK) {
        status = sp_result_read_open_why(path, &tl->file_, why, sizeof(why));
    }
    if (status != SP_OK) {
        tl->file_ = -1;
        return fail(tl, status, why, NULL);
    }
    return SP_OK;
}

/* Every later read trusts the rank table: one row per rank, each slice inside the events table. */
static sp_status_t check_ranks(sp_tlread_t *tl)
{
    char detail[128];

    if (tl->nranks > 1) { /* qsort(NULL, 0) is undefined; an empty /timeline/ranks is valid */
        qsort(tl->ranks, tl->nranks, sizeof(*tl->ranks), rank_cmp);
    }
    for (size_t i = 0; i < tl->nranks; i++) {
        const sp_tl_rank_t *r = &tl->ranks[i];
        if (r->rank < 0 || (i > 0 && r->rank == tl->ranks[i - 1].rank)) {
            snprintf(detail, sizeof(detail), "rank %d is negative or listed twice", (int)r->rank);
            return fail(tl, SP_ERR_FORMAT, "/timeline/ranks", detail);
        }
        if (r->offset > tl->nevents || r->count > tl->nevents - r->offset) {
            snprintf(detail, sizeof(detail),
                     "rank %d's events [%llu, +%llu) lie beyond the %llu events", (int)r->rank,
                     (unsigned long long)r->offset, (unsigned long long)r->count,
                     (unsigned long long)tl->nevents);
            return fail(tl, SP_ERR_FORMAT, "/timeline/ranks", detail);
        }
    }
    return SP_OK;
}

/* Close a half-opened reader; the reason of the failure survives the close, which clears tl. */
static void close_keeping_why(sp_tlread_t *tl)
{
    char why[sizeof(tl->why)];

    memcpy(why, tl->why, sizeof(why));
    sp_tlread_close(tl);
    memcpy(tl->why, why, sizeof(why));
}

sp_status_t sp_tlread_open(const char *path, sp_tlread_t *tl)
{
    hid_t type;
    hid_t space;
    hid_t dapl;
    hsize_t dims[1] = {0};
    char buf[64];
    void *rows = NULL;
    sp_status_t status;

    memset(tl, 0, sizeof(*tl));
    tl->file_ = tl->events_ = tl->event_type_ = H5I_INVALID_HID;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    status = open_file(tl, path);
    if (status != SP_OK) {
        goto close_tl;
    }
    if (H5Lexists(tl->file_, "timeline", H5P_DEFAULT) <= 0) {
        return SP_OK; /* an older file, or a run that ended before aggregation: no events */
    }
    {
        hid_t group = H5Gopen2(tl->file_, "timeline", H5P_DEFAULT);
        if (group < 0) {
            status = fail(tl, SP_ERR_FORMAT, "/timeline", sp__result_h5_error().text);
            goto close_tl;
        }
        status = sp__result_read_attr(group, "clock_err_ns", buf, sizeof(buf));
        H5Gclose(group);
        if (status != SP_OK) {
            fail(tl, status, "/timeline", "no clock_err_ns attribute");
            goto close_tl;
        }
        tl->clock_err_ns = strtoll(buf, NULL, 10);
    }

    tl->event_type_ = sp__result_event_type(sp_coll_names, SP_COLL_COUNT);
    dapl = H5Pcreate(H5P_DATASET_ACCESS);
    H5Pset_chunk_cache(dapl, EVENTS_CACHE_SLOTS, EVENTS_CACHE_BYTES, H5D_CHUNK_CACHE_W0_DEFAULT);
    tl->events_ = H5Dopen2(tl->file_, "/timeline/events", dapl);
    H5Pclose(dapl);
    if (tl->events_ < 0) {
        status = fail(tl, SP_ERR_FORMAT, "/timeline/events", sp__result_h5_error().text);
        goto close_tl;
    }
    space = H5Dget_space(tl->events_);
    if (space < 0 || H5Sget_simple_extent_ndims(space) != 1) {
        status = fail(tl, SP_ERR_FORMAT, "/timeline/events", "not a 1-D table");
        if (space >= 0) {
            H5Sclose(space);
        }
        goto close_tl;
    }
    H5Sget_simple_extent_dims(space, dims, NULL);
    H5Sclose(space);
    tl->nevents = (uint64_t)dims[0];

    type = sp__result_tl_rank_type();
    status = read_table(tl, "/timeline/ranks", type, sizeof(sp_tl_rank_t), &rows, &tl->nranks);
    H5Tclose(type);
    if (status != SP_OK) {
        goto close_tl;
    }
    tl->ranks = rows;
    status = check_ranks(tl);
    if (status != SP_OK) {
        goto close_tl;
    }
    tl->present = 1;
    return SP_OK;

close_tl:
    close_keeping_why(tl);
    return status;
}

void sp_tlread_close(sp_tlread_t *tl)
{
    if (tl == NULL) {
        return;
    }
    /* a zeroed struct has handles 0, which are never valid HDF5 ids */
    if (tl->event_type_ > 0) {
        H5Tclose(tl->event_type_);
    }
    if (tl->events_ > 0) {
        H5Dclose(tl->events_);
    }
    if (tl->file_ > 0) {
        H5Fclose(tl->file_);
    }
    free(tl->ranks);
    memset(tl, 0, sizeof(*tl));
    tl->file_ = tl->events_ = tl->event_type_ = H5I_INVALID_HID;
}

const sp_tl_rank_t *sp_tlread_find(const sp_tlread_t *tl, int rank)
{
    sp_tl_rank_t key;

    if (tl == NULL || tl->ranks == NULL) {
        return NULL;
    }
    memset(&key, 0, sizeof(key));
    key.rank = rank;
    return bsearch(&key, tl->ranks, tl->nranks, sizeof(*tl->ranks), rank_cmp);
}

/* Read rows [offset, offset + n) of /timeline/events as memtype into buf. */
static sp_status_t read_rows(sp_tlread_t *tl, uint64_t offset, size_t n, hid_t memtype, void *buf)
{
    hsize_t start[1] = {offset};
    hsize_t count[1] = {n};
    hid_t fspace = H5Dget_space(tl->events_);
    hid_t mspace;
    herr_t rc;

    if (fspace < 0) {
        return fail(tl, SP_ERR_IO, "/timeline/events", sp__result_h5_error().text);
    }
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    mspace = H5Screate_simple(1, count, NULL);
    rc = H5Dread(tl->events_, memtype, mspace, fspace, H5P_DEFAULT, buf);
    H5Sclose(mspace);
    H5Sclose(fspace);
    if (rc < 0) {
        return fail(tl, SP_ERR_IO, "reading /timeline/events", sp__result_h5_error().text);
    }
    return SP_OK;
}

sp_status_t sp_tlread_rank(sp_tlread_t *tl, int rank, sp_event_rec_t *buf, size_t max,
                           uint64_t from, size_t *n_p)
{
    const sp_tl_rank_t *row;
    size_t n;
    sp_status_t status;

    if (tl == NULL || rank < 0 || (buf == NULL && max > 0) || n_p == NULL) {
        return SP_ERR_INVALID;
    }
    row = sp_tlread_find(tl, rank);
    if (row == NULL || from >= row->count || max == 0) {
        *n_p = 0;
        return SP_OK;
    }
    n = row->count - from < max ? (size_t)(row->count - from) : max;
    status = read_rows(tl, row->offset + from, n, tl->event_type_, buf);
    if (status != SP_OK) {
        return status;
    }
    for (size_t i = 0; i < n; i++) {
        if (buf[i].rank != rank) {
            char detail[128];
            snprintf(detail, sizeof(detail), "event %llu of rank %d belongs to rank %d",
                     (unsigned long long)(row->offset + from + i), rank, (int)buf[i].rank);
            return fail(tl, SP_ERR_FORMAT, "/timeline/ranks does not match /timeline/events",
                        detail);
        }
    }
    *n_p = n;
    return SP_OK;
}

uint64_t sp_tlread_chunk_rows(const sp_tlread_t *tl)
{
    hsize_t dims[1] = {1};
    hid_t dcpl;

    if (tl == NULL || !tl->present || tl->events_ <= 0) {
        return 0;
    }
    dcpl = H5Dget_create_plist(tl->events_);
    if (dcpl < 0) {
        return 1;
    }
    if (H5Pget_layout(dcpl) != H5D_CHUNKED || H5Pget_chunk(dcpl, 1, dims) != 1 || dims[0] == 0) {
        dims[0] = 1;
    }
    H5Pclose(dcpl);
    return (uint64_t)dims[0];
}

sp_status_t sp_tlread_span(sp_tlread_t *tl, int rank, int64_t *start_ns_p, int64_t *end_ns_p)
{
    const sp_tl_rank_t *row;
    span_rec_t *buf;
    hid_t type;
    int64_t lo = INT64_MAX;
    int64_t hi = INT64_MIN;
    sp_status_t status = SP_OK;

    if (tl == NULL || rank < 0 || start_ns_p == NULL || end_ns_p == NULL) {
        return SP_ERR_INVALID;
    }
    row = sp_tlread_find(tl, rank);
    if (row == NULL || row->count == 0) {
        *start_ns_p = lo;
        *end_ns_p = hi;
        return SP_OK;
    }
    buf = malloc(SPAN_BATCH * sizeof(*buf));
    if (buf == NULL) {
        return fail(tl, SP_ERR_NOMEM, "out of memory", NULL);
    }
    type = span_type();
    for (uint64_t from = 0; from < row->count && status == SP_OK; from += SPAN_BATCH) {
        size_t n = row->count - from < SPAN_BATCH ? (size_t)(row->count - from) : SPAN_BATCH;
        status = read_rows(tl, row->offset + from, n, type, buf);
        for (size_t i = 0; i < n && status == SP_OK; i++) {
            lo = buf[i].start_ns < lo ? buf[i].start_ns : lo;
            hi = buf[i].end_ns > hi ? buf[i].end_ns : hi;
        }
    }
    H5Tclose(type);
    free(buf);
    if (status != SP_OK) {
        return status;
    }
    *start_ns_p = lo;
    *end_ns_p = hi;
    return SP_OK;
}

sp_status_t sp_tlread_clock(sp_tlread_t *tl, sp_clock_rank_t **rows_p, size_t *n_p)
{
    hid_t type;
    void *rows = NULL;
    size_t n = 0;
    sp_status_t status = SP_OK;

    if (tl == NULL || tl->file_ <= 0 || rows_p == NULL || n_p == NULL) {
        return SP_ERR_INVALID;
    }
    if (H5Lexists(tl->file_, "clock", H5P_DEFAULT) > 0 &&
        H5Lexists(tl->file_, "clock/ranks", H5P_DEFAULT) > 0) {
        type = sp__result_clock_type();
        status = read_table(tl, "/clock/ranks", type, sizeof(sp_clock_rank_t), &rows, &n);
        H5Tclose(type);
    }
    if (status != SP_OK) {
        return status;
    }
    *rows_p = rows;
    *n_p = n;
    return SP_OK;
}

sp_status_t sp_tlread_all(const char *path, const int *ranks, size_t nranks,
                          sp_event_rec_t **events_p, size_t *n_p)
{
    sp_tlread_t tl;
    sp_event_rec_t *events = NULL;
    size_t total = 0;
    size_t nsel = ranks != NULL ? nranks : 0;
    sp_status_t status;

    if (path == NULL || events_p == NULL || n_p == NULL) {
        return SP_ERR_INVALID;
    }
    status = sp_tlread_open(path, &tl);
    if (status != SP_OK) {
        sp_warn("%s: %s", path, tl.why);
        return status;
    }
    if (ranks == NULL) {
        nsel = tl.nranks;
    }
    for (size_t i = 0; i < nsel; i++) {
        int r = ranks != NULL ? ranks[i] : tl.ranks[i].rank;
        const sp_tl_rank_t *row;
        if (r < 0) {
            sp_warn("%s: rank %d is not a rank", path, r);
            status = SP_ERR_INVALID;
            goto close_tl;
        }
        row = sp_tlread_find(&tl, r);
        total += row != NULL ? (size_t)row->count : 0;
    }
    if (total > 0) {
        events = calloc(total, sizeof(*events));
        if (events == NULL) {
            sp_warn("%s: no memory for %zu timeline events", path, total);
            status = SP_ERR_NOMEM;
            goto close_tl;
        }
    }
    for (size_t i = 0, at = 0; i < nsel && total > 0; i++) {
        int r = ranks != NULL ? ranks[i] : tl.ranks[i].rank;
        size_t n = 0;
        status = sp_tlread_rank(&tl, r, events + at, total - at, 0, &n);
        if (status != SP_OK) {
            sp_warn("%s: the timeline is damaged: %s", path, tl.why);
            goto free_events;
        }
        at += n;
    }
    *events_p = events;
    *n_p = total;
    sp_tlread_close(&tl);
    return SP_OK;

free_events:
    free(events);
close_tl:
    sp_tlread_close(&tl);
    return status;
}
