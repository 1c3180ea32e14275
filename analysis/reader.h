/* Reading a result file back for the offline tools (report, compare, regress, export, predict):
 * one struct with everything a file holds, filled by the generic half in the runtime
 * (result_read.h) and each workload's reader (coll_result.h, proxy_result.h, node_result.h,
 * links_result.h).
 * Whole tables are read into memory: a sweep has thousands of rows, not millions. */
#ifndef SP_READER_H
#define SP_READER_H

#include <hdf5.h>
#include <stddef.h>

#include "coll_groups.h"
#include "coll_result.h"
#include "links_result.h"
#include "node_result.h"
#include "proxy_result.h"
#include "result.h"
#include "result_read.h"
#include "status.h"
#include "topo.h"

typedef struct {
    char path[4096];
    char why[256]; /* after a failed sp_reader_open: why the file cannot be read, for a message
                    * after its path ("is empty", "is a damaged HDF5 file: /coll ...") */
    char created[64];
    char tool_version[64];
    char status[32];
    char command_line[4096];
    char subcommand[32];
    char backend[32];
    long schema_version;
    int world_size;
    int node_count;
    char launch[512];            /* one line from /launch: launcher, Slurm job, PML ("" if none) */

    sp_topo_rank_t *ranks;       /* world_size rows of /topology/ranks */
    sp_coll_row_t *rows;         /* /coll/results */
    size_t nrows;
    sp_coll_wrong_t *wrong;      /* /coll/wrong */
    size_t nwrong;
    sp_coll_group_row_t *groups; /* /coll/groups of a split sweep; NULL without one */
    size_t ngroups;              /* its rows (groups x points) */
    char split[64];              /* /coll attribute split ("" without one) */
    char issue[16];              /* /coll attribute issue: "blocking" (also older files) or
                                  * "stream" (coll --issue) */
    int64_t stream_wait_ns;      /* /coll attribute stream_wait_ns, 0: absent */
    int has_proxy;               /* a proxy file: /proxy/info was read */
    sp_proxy_info_t proxy_info;  /* /proxy/info */
    sp_proxy_rank_row_t *proxy;  /* /proxy/ranks */
    size_t nproxy;
    char proxy_schedule[32];     /* attributes of /proxy */
    char proxy_model[32];
    char proxy_dp_mode[16];
    sp_fp_rank_t *fp;            /* /fingerprint/ranks; NULL in files without it (older runs) */
    size_t nfp;
    sp_fp_node_t *fp_nodes;      /* /fingerprint/nodes */
    size_t nfp_nodes;
    char fp_ties[256];           /* its attribute no_majority: fields tied across nodes */
    int proxy_predicted;             /* /proxy attribute predicted: written by `predict` */
    char proxy_predicted_source[1100]; /* its cost model (predicted_source) */
    char proxy_sharing_warning[SP_PROXY_NOTE_LEN]; /* /proxy attribute sharing_warning, or "" */
    char proxy_compute[SP_PROXY_NOTE_LEN]; /* /proxy attribute compute, or "" (older files) */
    int has_node;                      /* a node file: /node was read (node/node_result.c) */
    sp_node_row_t *node_rows;          /* /node/results */
    size_t nnode_rows;
    sp_node_burn_row_t *node_burn;     /* /node/burn */
    size_t nnode_burn;
    sp_node_outlier_row_t *node_outliers; /* /node/outliers */
    size_t nnode_outliers;
    char node_blas[512];               /* attributes of /node: host BLAS, GPU, threshold */
    char node_gpu[512];
    char node_threshold[32];
    sp_links_result_data_t links;      /* /links (links/links_result.c); links.present */
} sp_reader_t;

/* Open and read path. Returns SP_ERR_FORMAT (with a logged reason) for files that are not
 * scaleprobe result files, SP_ERR_IO when the file cannot be opened. */
sp_status_t sp_reader_open(const char *path, sp_reader_t *rd);
void sp_reader_close(sp_reader_t *rd);

/* sp_reader_open for a command: on failure prints one message ("scaleprobe CMD: error: PATH:
 * not a scaleprobe result file ..." or "... cannot be read") and returns the status. */
sp_status_t sp_reader_open_for(const char *cmd, const char *path, sp_reader_t *rd);

/* sp_result_read_table (result_read.h): the whole 1-D table `name` of an open file into a
 * malloc'ed array (*rows_p NULL when empty or when the table does not exist). SP_ERR_FORMAT when
 * it is not a readable 1-D table of that type, SP_ERR_NOMEM. */
sp_status_t sp_reader_read_table(hid_t file, const char *name, hid_t type, size_t row_size,
                                 void **rows_p, size_t *n_p);

/* The label of a sweep point, as compare and regress name it: "all_reduce 1048576 B float sum",
 * then " root R" when the row has a root and " in-place". */
void sp_reader_point_label(const sp_coll_row_t *r, char *out, size_t len);

/* Per measured step of a proxy file, the mean over ranks of the double member at `offset` of
 * sp_proxy_rank_row_t (NaN values left out; NaN for a step without any): *values_p (caller
 * frees, NULL when there is no step) with *steps_p entries. SP_ERR_NOMEM. */
sp_status_t sp_reader_proxy_steps(const sp_reader_t *rd, size_t offset, double **values_p,
                                  size_t *steps_p);

/* Host name of a rank, "?" when unknown. */
const char *sp_reader_host(const sp_reader_t *rd, int rank);

/* Per-sample times of row i (caller frees). */
sp_status_t sp_reader_samples(const sp_reader_t *rd, size_t i, sp_coll_sample_t **samples_p);

/* Whether sweep rows x and y measure the same point: op, type, reduction, root, in-place and
 * size. A sweep run with -N cycles has one row per point per cycle, in order. */
int sp_reader_same_point(const sp_coll_row_t *x, const sp_coll_row_t *y);

/* Row i's cycle (-N), from 0: how many earlier rows measure its point. compare, regress and
 * predict take one point per file, at its cycle 0 row, with the rows of every cycle. */
size_t sp_reader_point_cycle(const sp_reader_t *rd, size_t i);

/* How many rows of /coll/results measure row i's point: its cycles (1 without -N). */
size_t sp_reader_point_rows(const sp_reader_t *rd, size_t i);

/* A point over all its cycles: the per-sample times of every row that measures it, pooled in
 * row order (v, caller frees; NULL when none), how many rows (cycles) that is, and its figure:
 * rows whose time_us is each the median of their samples (the default method without -a, and
 * any single row), the median of the pooled times with the first row's busbw scaled to it;
 * otherwise (-a, the peer methods) the median of the rows' time_us and busbw_gbps. NaN without
 * samples. */
typedef struct {
    double *v;
    size_t n;
    size_t rows;
    double median_us;
    double busbw_gbps;
} sp_reader_pooled_t;

/* Row i's point pooled over its cycles (i: any of its rows). SP_ERR_NOMEM, or the status of
 * reading the samples. */
sp_status_t sp_reader_point_pooled(const sp_reader_t *rd, size_t i, sp_reader_pooled_t *p);

/* Only the median and bus bandwidth of sp_reader_point_pooled, without reading any sample when
 * the point has one row. */
sp_status_t sp_reader_point_value(const sp_reader_t *rd, size_t i, double *us, double *busbw);

/* Per-rank median times of row i (world_size values; caller frees). */
sp_status_t sp_reader_rank_times(const sp_reader_t *rd, size_t i, double **times_p);

#endif
