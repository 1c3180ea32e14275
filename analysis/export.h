/* `scaleprobe export`: a result file's timeline as a Chrome/Perfetto trace (JSON) and its tables
 * as CSV files, for tools that do not read HDF5. Events are streamed rank by rank, chunk by
 * chunk: memory does not grow with the number of events. */
#ifndef SP_EXPORT_H
#define SP_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "reader.h"
#include "status.h"
#include "tlread.h"

/* What to export: an opened file and the ranks chosen (selected[r] != 0 for r in [0, nranks)). */
typedef struct {
    const sp_reader_t *rd;
    sp_tlread_t *tl;
    const uint8_t *selected;
    int nranks;
} sp_export_src_t;

/* What a writer saw, for the summary and the warnings. */
typedef struct {
    uint64_t events;   /* events written */
    uint64_t negative; /* events that ended before they started (written with duration 0
                        * in the trace, as recorded in the CSV) */
} sp_export_stats_t;

/*
 * Write the Chrome trace-event JSON of the selected ranks to out: {"displayTimeUnit":"ns",
 * "otherData":{...},"traceEvents":[...]}, one "X" event per timeline event (ts, dur in
 * microseconds from the earliest exported event, pid = rank, tid = lane) and "M" events naming
 * every rank and every (rank, lane) seen. Reads the events twice (the earliest start, then the
 * events) and holds one chunk at a time. Returns SP_ERR_IO on a read or write error (tl->why or
 * errno says which), SP_ERR_FORMAT for a damaged timeline, SP_ERR_NOMEM.
 */
sp_status_t sp_export_chrome(const sp_export_src_t *src, FILE *out, sp_export_stats_t *stats_p);

/* events.csv: one header line, then one row per event of the selected ranks, by rank, with the
 * enum columns (kind, op, dtype) as names ("none" for -1). Errors as sp_export_chrome. */
sp_status_t sp_export_events_csv(const sp_export_src_t *src, FILE *out, sp_export_stats_t *stats_p);

/* clock.csv (the /clock/ranks rows of the selected ranks; header only without /clock),
 * ranks.csv (/topology/ranks of the selected ranks) and coll_results.csv (every /coll/results
 * row, op, dtype and redop as names). Errors as sp_export_chrome. */
sp_status_t sp_export_clock_csv(const sp_export_src_t *src, FILE *out);
sp_status_t sp_export_ranks_csv(const sp_export_src_t *src, FILE *out);
sp_status_t sp_export_results_csv(const sp_export_src_t *src, FILE *out);

/* coll_rank_times.csv: /coll/rank_times in long format, one row per point x selected rank with
 * the point's keys (op, dtype, redop, placement, root, bytes), the rank, its host and its own
 * median time_us. Errors as sp_export_chrome. */
sp_status_t sp_export_rank_times_csv(const sp_export_src_t *src, FILE *out);

/* Any 1-D compound table of file (path table, e.g. "/proxy/ranks") as CSV: a header of its
 * column names, then every row, integers and doubles as numbers ("nan", "inf"), fixed strings
 * as text, HDF5 enum columns as the names their type stores. SP_ERR_IO when the file cannot be
 * opened or writing failed, SP_ERR_FORMAT when table is not such a table, SP_ERR_NOMEM. */
sp_status_t sp_export_table_csv(const char *file, const char *table, FILE *out);

/* 1 when file has an object at path (each group on the way exists), else 0. */
int sp_export_has(const char *file, const char *path);

/* The name of a timeline lane: the proxy's lane names (compute, tp, pp_fwd0.., dp, dp_gather)
 * in a proxy file, "sweep" for lane 0 of other files, "other" beyond. Static storage. */
const char *sp_export_lane_name(const sp_export_src_t *src, int lane);

/* CSV fields shared by the writers: a string quoted when it must be, a double with "nan" and
 * "inf" spelled the same on every libc. */
void sp__export_csv_str(FILE *out, const char *s);
void sp__export_csv_double(FILE *out, double v);

/* links.csv: every /links/pairs row (all passes) with its hosts, and `counts` 1 on the row of
 * each link that the matrix and the verdicts use (sp_links_best_rows); a header only in a file
 * without /links. */
sp_status_t sp_export_links_csv(const sp_export_src_t *src, FILE *out);

/* argv[1] is "export"; returns the process exit code: 0, 2 for bad input (one message on
 * stderr, nothing written), 1 when writing failed (no output file is left behind). */
int sp_export_main(int argc, char **argv);

#endif
