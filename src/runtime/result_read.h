/* Reading a result file back, the part every file has: the format check, the root attributes,
 * /topology/ranks, /fingerprint and /launch, and the table and attribute readers the workloads'
 * own readers (collectives/coll_result.c, proxies/proxy_result.c, node/node_result.c) are built
 * on. analysis/reader.c puts the halves together. Whole tables are read into memory. */
#ifndef SP_RESULT_READ_H
#define SP_RESULT_READ_H

#include <hdf5.h>
#include <stddef.h>

#include "fingerprint.h"
#include "status.h"
#include "topo.h"

/* Root attributes (docs/SCHEMA.md, "Root attributes"). */
typedef struct {
    char created[64];
    char tool_version[64];
    char status[32];
    char command_line[4096];
    char subcommand[32];
    char backend[32];
    long schema_version;
    int world_size;
    int node_count;
} sp_result_root_t;

/* /fingerprint/ranks and /fingerprint/nodes; all empty in files without them (older runs). */
typedef struct {
    sp_fp_rank_t *ranks; /* world_size rows, or NULL */
    size_t nranks;
    sp_fp_node_t *nodes;
    size_t nnodes;
    char ties[256]; /* attribute no_majority of /fingerprint/nodes */
} sp_result_fp_t;

/* Open path read-only after checking that it is a scaleprobe result file of this schema
 * (format "scaleprobe", schema_version SP_SCHEMA_VERSION). SP_ERR_FORMAT when it is not (not
 * HDF5, another format or schema), SP_ERR_IO when it cannot be opened. The caller closes
 * *file_p with H5Fclose. */
sp_status_t sp_result_read_open(const char *path, hid_t *file_p);

/* The same, with why path cannot be read in why (len bytes), for the one message the caller
 * prints after the path: "no such file", "is a directory, not a result file", "is empty",
 * "is not an HDF5 file", "is a damaged HDF5 file", "is an HDF5 file, but not a scaleprobe result
 * file", "has schema version N, newer than ...". SP_ERR_INVALID for a path that is no readable
 * file (missing, a directory, no permission), SP_ERR_FORMAT for one that is no result file of
 * this schema; both are bad input (exit 2). */
sp_status_t sp_result_read_open_why(const char *path, hid_t *file_p, char *why, size_t len);

/* The root attributes of an open file (missing ones left empty / 0). */
void sp_result_read_root(hid_t file, sp_result_root_t *root);

/* Whether an HDF5 datatype is whole: a compound's members (and theirs) lie inside its element.
 * A damaged file can place one far outside, and HDF5 converts such a type without checking. */
int sp_result_type_fits(hid_t type);

/* Read the whole 1-D table `name` of an open file into a malloc'ed array (*rows_p NULL when
 * empty or when the table does not exist). SP_ERR_FORMAT when it is not a readable 1-D table of
 * that type, SP_ERR_NOMEM. */
sp_status_t sp_result_read_table(hid_t file, const char *name, hid_t type, size_t row_size,
                                 void **rows_p, size_t *n_p);

/* /topology/ranks: world_size rows into *ranks_p (caller frees; set even on SP_ERR_FORMAT, which
 * means the node map does not have one row per rank). */
sp_status_t sp_result_read_topology(hid_t file, int world_size, sp_topo_rank_t **ranks_p);

/* /fingerprint/ranks (only when it has world_size rows of today's type) and /fingerprint/nodes
 * into fp (zeroed first; caller frees fp->ranks and fp->nodes). Never fails: a file without a
 * readable fingerprint has none. */
void sp_result_read_fingerprint(hid_t file, int world_size, sp_result_fp_t *fp);

/* One line from /launch: "srun, Slurm job 42 (nodes n[1-2], tasks per node 2(x2)), pml ob1
 * (the same on all 4 ranks)"; "" for files without it. */
void sp_result_read_launch(hid_t file, char *out, size_t outlen);

/* The number of rows (first dimension) of dataset name of an open file; 0 when it is absent or
 * cannot be read. Readers bound every offset and count they take from a row by it. */
hsize_t sp_result_read_extent(hid_t file, const char *name);

/* Open path, read count elements of dataset name from offset (1-D), or row `row` of a 2-D
 * dataset (two_d; count = its columns) into out, and close. SP_ERR_IO, SP_ERR_FORMAT. */
sp_status_t sp_result_read_slab(const char *path, const char *name, hid_t type, hsize_t row,
                                hsize_t offset, hsize_t count, int two_d, void *out);

/* Read attribute `name` of obj into out as a string (integers in decimal); SP_ERR_FORMAT when
 * missing or unreadable. */
sp_status_t sp__result_read_attr(hid_t obj, const char *name, char *out, size_t outlen);

#endif
