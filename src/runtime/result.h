/* The result file (HDF5, one per run, owned by rank 0): what every file has, and the generic
 * tables each workload writes its own group through (its rows and types live in its folder).
 * Results are written as they are produced and flushed, and the root attribute `status` stays
 * "partial" until the run closes the file cleanly. docs/SCHEMA.md is the contract. */
#ifndef SP_RESULT_H
#define SP_RESULT_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "fingerprint.h"
#include "kv.h"
#include "options.h"
#include "status.h"
#include "timeline.h"
#include "topo.h"

#define SP_SCHEMA_VERSION 1
#define SP_RESULT_ENUM_NONE (-1) /* value of the "none" member of sp__result_enum8 */

/* One row of /timeline/ranks: where a rank's events are in /timeline/events. */
typedef struct {
    int32_t rank;
    uint64_t offset;
    uint64_t count;
    uint64_t dropped;    /* events the rank's buffer could not hold */
} sp_tl_rank_t;

/* One row of /clock/ranks: the rank's clock against rank 0's, global = local - offset(t),
 * offset(t) = offset_ns + drift * (t - sync_start_ns), t local. */
typedef struct {
    int32_t rank;
    int32_t node;
    int32_t measured;        /* 1: measured itself; 0: took its node leader's model */
    int64_t offset_ns;       /* at the start synchronization */
    int64_t offset_end_ns;   /* at the end synchronization */
    double drift;            /* ns per ns of local time */
    int64_t err_ns;          /* bound on the error of a mapped time (half the min round trip) */
    int64_t rtt_ns;          /* minimum round trip seen */
    int64_t sync_start_ns;   /* local time of the start synchronization */
    int64_t sync_end_ns;
} sp_clock_rank_t;

typedef struct sp_result sp_result_t;

/* Root attributes written at creation. */
typedef struct {
    const char *command_line;
    const char *subcommand;
    const char *backend;
    int world_size;
    int node_count;
    /* names of the `op` enum of /timeline/events (value i = event_ops[i]; -1 is "none"): the
     * workload's operation registry, e.g. the collectives' names. Not copied: the array must
     * outlive the handle (a static table). NULL and 0 for a file without such events. */
    const char *const *event_ops;
    int nevent_ops;
} sp_result_info_t;

/*
 * Create the file at path (rank 0 only). Fails with SP_ERR_EXISTS when it exists and !force.
 * Creates missing parent directories. The file starts with status="partial".
 */
sp_status_t sp_result_create(const char *path, int force, const sp_result_info_t *info,
                             sp_result_t **res_p);

/* Check that path can be created (does not exist, or force), without creating it. */
sp_status_t sp_result_check_path(const char *path, int force);

/* Write every option of table as a string attribute of /config. */
sp_status_t sp_result_write_config(sp_result_t *res, const sp_opt_table_t *table, const void *opts);

/* Write /topology/ranks from the gathered node map. */
sp_status_t sp_result_write_topology(sp_result_t *res, const sp_topo_t *topo);

/* /launch: how the job was launched (topo/launch.h), one string attribute per entry. */
sp_status_t sp_result_write_launch(sp_result_t *res, const sp_kv_t *kv, int n);

/* Write /fingerprint: versions and properties as attributes, the captured environment as the
 * attributes of /fingerprint/environment (already allow-listed and redacted), and when ranks is
 * not NULL /fingerprint/ranks (nranks rows, their flags set here by sp_fp_majority) and
 * /fingerprint/nodes (nnodes rows; attribute no_majority names the fields tied across nodes). */
sp_status_t sp_result_write_fingerprint(sp_result_t *res, const sp_kv_t *versions, int nversions,
                                        const sp_kv_t *env, int nenv, sp_fp_rank_t *ranks,
                                        int nranks, int nnodes);

/* /timeline: open the events and ranks tables (rank 0, once); append events (already on rank 0's
 * clock) and per-rank rows; close. err_ns is the clock model's worst error bound. */
sp_status_t sp_result_timeline_open(sp_result_t *res, int64_t err_ns);
sp_status_t sp_result_timeline_append(sp_result_t *res, const sp_event_rec_t *events, size_t n);
sp_status_t sp_result_timeline_rank(sp_result_t *res, const sp_tl_rank_t *row);
uint64_t sp_result_timeline_count(const sp_result_t *res);
sp_status_t sp_result_timeline_close(sp_result_t *res);

/* Attributes of /timeline about its aggregation: totals, rate, rank 0's peak memory, the clock
 * error bound and how it was written (io). */
sp_status_t sp_result_timeline_stats(sp_result_t *res, uint64_t events, uint64_t dropped,
                                     double seconds, long peak_rss_kib, int64_t err_ns,
                                     const char *io);

/* The file's path; and closing / reopening rank 0's handle around a collective (MPI-IO) write
 * by every rank (aggregate.c). While suspended nothing may be written: a table append fails with
 * SP_ERR_INVALID (a workload appends nothing between suspend and resume). */
const char *sp_result_path(const sp_result_t *res);
sp_status_t sp_result_suspend(sp_result_t *res);
sp_status_t sp_result_resume(sp_result_t *res);

/* /clock: one row per rank, the method and the pings per measurement. */
sp_status_t sp_result_write_clock(sp_result_t *res, const sp_clock_rank_t *rows, size_t n,
                                  const char *method, int pings);

/* Tables a workload owns the types of (collectives/coll_result.c, proxies/proxy_result.c,
 * node/node_result.c). Paths are absolute ("/node/results"). The handle keeps the datasets it
 * appended to open (a few, by path) until suspend or close, so appending a row costs no open.
 *
 * sp_result_group_create: create the group at path (and its parents) when missing.
 * sp_result_exists: 1 when an object exists at path, else 0.
 * sp_result_table_create: an empty 1-D chunked (chunk_rows per chunk), compressed table.
 * sp_result_table_append: append n rows of type at the table's end and flush, so a stopped run
 *   keeps every appended row; sp_result_table_append_noflush the same without the flush (the
 *   caller flushes with sp_result_flush once the rows that belong together are all written).
 * sp_result_table_rows: rows the table holds now.
 * sp_result_matrix_create: an empty 2-D table of ncols columns of type, one row per chunk, that
 *   grows by rows; sp_result_matrix_append writes one row of ncols values (no flush;
 *   SP_ERR_INVALID when the matrix has another number of columns).
 * sp_result_attr_str, sp_result_attr_int: a scalar attribute of the object at path. */
sp_status_t sp_result_group_create(sp_result_t *res, const char *path);
int sp_result_exists(sp_result_t *res, const char *path);
sp_status_t sp_result_table_create(sp_result_t *res, const char *path, hid_t type,
                                   size_t chunk_rows);
sp_status_t sp_result_table_append(sp_result_t *res, const char *path, hid_t type,
                                   const void *rows, size_t n);
sp_status_t sp_result_table_append_noflush(sp_result_t *res, const char *path, hid_t type,
                                           const void *rows, size_t n);
sp_status_t sp_result_table_rows(sp_result_t *res, const char *path, uint64_t *n_p);
sp_status_t sp_result_matrix_create(sp_result_t *res, const char *path, hid_t type, int ncols);
sp_status_t sp_result_matrix_append(sp_result_t *res, const char *path, hid_t type,
                                    const void *row, int ncols);
sp_status_t sp_result_attr_str(sp_result_t *res, const char *path, const char *name,
                               const char *value);
sp_status_t sp_result_attr_int(sp_result_t *res, const char *path, const char *name,
                               long long value);

/* Flush everything written so far to the file. */
sp_status_t sp_result_flush(sp_result_t *res);

/* Set the root attribute status ("complete", "partial" or "failed") and close. NULL is a no-op. */
sp_status_t sp_result_close(sp_result_t *res, const char *status);

/* ---- HDF5 types, shared with the workloads' tables and the readers ---- */

/* Building blocks of compound types: an 8-bit enum of n names (values 0..n-1, plus "none" =
 * SP_RESULT_ENUM_NONE when with_none), and a fixed-length NUL-terminated string member of n
 * bytes. The caller closes a returned type with H5Tclose. */
hid_t sp__result_enum8(const char *const *names, int n, int with_none);
void sp__result_insert_str(hid_t t, const char *name, size_t offset, size_t n);
hid_t sp__result_topo_type(void);
/* /timeline/events rows (sp_event_rec_t), the `op` member an enum of ops[0..nops) and "none" */
hid_t sp__result_event_type(const char *const *ops, int nops);

/* The filters of every chunked dataset of a result file. Only HDF5's built-in filters, so h5py
 * and h5dump read the file without plugins. The default is chosen by bench/bench_h5filter.c
 * (docs/METHODOLOGY.md, "The result file's compression"). */
typedef enum {
    SP_H5_FILTER_NONE = 0,
    SP_H5_FILTER_DEFLATE4,         /* zlib level 4, no shuffle: the former default */
    SP_H5_FILTER_SHUFFLE_DEFLATE1, /* byte shuffle, then zlib level 1 */
} sp_h5_filter_t;
#define SP_H5_FILTER_DEFAULT SP_H5_FILTER_SHUFFLE_DEFLATE1
/* /timeline/events has its own default, chosen by bench/bench_aggregate.c: rank 0 writes every
 * rank's events there, so its filter sets how fast aggregation reaches the disk. */
#define SP_H5_FILTER_TIMELINE SP_H5_FILTER_NONE
void sp__result_set_filter(hid_t dcpl, sp_h5_filter_t filter);
/* The filter of /timeline/events for the next sp_result_timeline_open (default
 * SP_H5_FILTER_TIMELINE), and where a shuffle + deflate 1 filter runs during aggregation:
 * producers != 0 (the default, SP_TL_PRODUCER_COMPRESS) has each producing rank compress its
 * own full chunks (aggregate_chunk.h) and rank 0 store them as they are; 0 has rank 0 run the
 * filter on every chunk. The file is the same format either way. */
void sp_result_set_timeline_filter(sp_result_t *res, sp_h5_filter_t filter);
void sp_result_set_timeline_producers(sp_result_t *res, int producers);
#define SP_TL_PRODUCER_COMPRESS 1
/* Whether sp_result_timeline_write_chunk is the way to write full chunks of this file's
 * /timeline/events (shuffle + deflate 1, compressed by the producers). */
int sp_result_timeline_precompressed(const sp_result_t *res);
/* Events per chunk of /timeline/events (~0.6 MiB): large enough to compress well, small enough
 * to read a rank's events without the whole table. */
#define SP_TL_CHUNK_EVENTS 8192
/* Append one chunk of SP_TL_CHUNK_EVENTS events already shuffled and deflated
 * (sp_tl_chunk_compress), nbytes long, of which the first rows (1..SP_TL_CHUNK_EVENTS) are
 * events: fewer only for the table's last chunk, after which no chunk may follow. The table must
 * hold a whole number of chunks. */
sp_status_t sp_result_timeline_write_chunk(sp_result_t *res, const void *data, size_t nbytes,
                                           size_t rows);
hid_t sp__result_tl_rank_type(void);   /* /timeline/ranks rows: sp_tl_rank_t */
hid_t sp__result_clock_type(void);     /* /clock/ranks rows: sp_clock_rank_t */
hid_t sp__result_fp_rank_type(void);   /* /fingerprint/ranks rows: sp_fp_rank_t */
hid_t sp__result_fp_node_type(void);   /* /fingerprint/nodes rows: sp_fp_node_t */


/* The HDF5 error stack's innermost message, by value (no shared buffer):
 * sp_error("...: %s", sp__result_h5_error().text). */
typedef struct {
    char text[256];
} sp_h5_msg_t;
sp_h5_msg_t sp__result_h5_error(void);

#endif
