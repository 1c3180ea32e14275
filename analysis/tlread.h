/* Reading the timeline of a result file back without loading all of it: /timeline/ranks says
 * where each rank's events are, and a rank's events are read as hyperslabs of /timeline/events,
 * so a tool can go rank by rank, chunk by chunk, on files with billions of events. */
#ifndef SP_TLREAD_H
#define SP_TLREAD_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "result.h"
#include "status.h"
#include "timeline.h"

typedef struct {
    int present;          /* 1 when the file has a /timeline; 0 for older files, which are
                           * valid and simply have no events */
    int64_t clock_err_ns; /* attribute /timeline clock_err_ns (0 without a timeline) */
    uint64_t nevents;     /* rows of /timeline/events */
    sp_tl_rank_t *ranks;  /* the rows of /timeline/ranks sorted by rank, nranks of them;
                           * owned by the reader, valid until sp_tlread_close */
    size_t nranks;
    char why[512]; /* after a failed call: what was wrong, one line, for the caller's
                    * one error message */

    /* private */
    hid_t file_;
    hid_t events_;
    hid_t event_type_;
} sp_tlread_t;

/*
 * Open path and read /timeline/ranks and the clock_err_ns attribute into caller storage tl
 * (nothing of /timeline/events is read yet). Logs nothing: on failure tl->why says what was
 * wrong and nothing needs closing.
 * Returns SP_OK also for a scaleprobe file without /timeline (tl->present = 0, no ranks);
 * SP_ERR_IO when path cannot be opened; SP_ERR_FORMAT for a file that is not a scaleprobe result
 * file of this schema, or whose timeline tables are damaged (a rank listed twice, events beyond
 * the table); SP_ERR_NOMEM.
 */
sp_status_t sp_tlread_open(const char *path, sp_tlread_t *tl);

/* Close the file and free the rank table; a zeroed or already closed tl is a no-op. */
void sp_tlread_close(sp_tlread_t *tl);

/* The /timeline/ranks row of rank (count and dropped events), or NULL when the timeline has no
 * row for it. Points into tl->ranks. O(log nranks). */
const sp_tl_rank_t *sp_tlread_find(const sp_tlread_t *tl, int rank);

/*
 * Read events [from, from + max) of rank's events (in the order the rank recorded them) into
 * buf, which has room for max events; *n_p is the number read: less than max at the end, 0 when
 * from is at or past the end or the rank has no events. A reader of a big file calls this with
 * from = 0, max, 2 max, ... until *n_p < max.
 * Returns SP_ERR_INVALID for rank < 0 or buf NULL with max > 0; SP_ERR_FORMAT when a row read is
 * not the rank's (a damaged /timeline/ranks); SP_ERR_IO for an HDF5 read failure (tl->why).
 */
sp_status_t sp_tlread_rank(sp_tlread_t *tl, int rank, sp_event_rec_t *buf, size_t max,
                           uint64_t from, size_t *n_p);

/* Rows per chunk of /timeline/events as stored (a reader whose reads start at multiples of it
 * decompresses each chunk once); 0 without a timeline, 1 for an unchunked table. */
uint64_t sp_tlread_chunk_rows(const sp_tlread_t *tl);

/*
 * Earliest start_ns and latest end_ns of rank's events, reading only those two columns.
 * A rank without events gives the empty span INT64_MAX, INT64_MIN. Errors as sp_tlread_rank.
 */
sp_status_t sp_tlread_span(sp_tlread_t *tl, int rank, int64_t *start_ns_p, int64_t *end_ns_p);

/*
 * The rows of /clock/ranks: *rows_p is malloc'ed (caller frees), NULL with *n_p = 0 when the
 * file has no /clock. Errors as sp_tlread_rank.
 */
sp_status_t sp_tlread_clock(sp_tlread_t *tl, sp_clock_rank_t **rows_p, size_t *n_p);

/*
 * Convenience for analyses that match events across ranks: every event of the given ranks in
 * one malloc'ed array (caller frees), rank after rank in the order of ranks[], each rank's
 * events in recorded order. ranks NULL (nranks ignored) means every rank of the timeline, by
 * rank. *events_p is NULL and *n_p 0 when there is nothing to read, including files without a
 * timeline. Outputs set only on success. Unlike the calls above it logs the reason of a failure
 * (a warning: its callers go on without the timeline), since the caller has no reader to ask.
 * Returns the errors of sp_tlread_open and sp_tlread_rank.
 */
sp_status_t sp_tlread_all(const char *path, const int *ranks, size_t nranks,
                          sp_event_rec_t **events_p, size_t *n_p);

#endif
