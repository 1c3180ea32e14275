/* The configuration fingerprint of a run: library versions, kernel, and the environment, taken
 * only by allow-list and with secret-looking values redacted, so nothing secret leaves the
 * machine in a result file; and every rank's hardware and software view (/fingerprint/ranks),
 * compared against the majority of its node and of all nodes (/fingerprint/nodes). */
#ifndef SP_FINGERPRINT_H
#define SP_FINGERPRINT_H

#include <mpi.h>
#include <stddef.h>

#include "kv.h"
#include "status.h"
#include "topo.h"

/* 1 when an environment variable of this name may be recorded (NCCL_*, UCX_*, OMPI_*, PMIX_*,
 * SLURM_*, CUDA_*, NVIDIA_*, HWLOC_*, OMP_*, and a few single names). */
int sp_env_allowed(const char *name);

/* 1 when a name looks secret (contains TOKEN, SECRET, KEY, PASSWORD, PASSWD or CREDENTIAL,
 * in any case): its value is recorded as "<redacted>". */
int sp_env_secret(const char *name);

/* Allow-listed entries of env (NAME=VALUE strings, NULL-terminated), sorted by name, secrets
 * redacted. Returns how many were written (at most max). */
int sp_env_capture(char *const *env, sp_kv_t *out, int max);

/* Library and system versions of this process: MPI library, HDF5, kernel. Returns how many. */
int sp_fingerprint_versions(sp_kv_t *out, int max);

/* ---- per-rank fingerprint ---- */

#define SP_FP_FLAGS_LEN 256
#define SP_FP_KEY_LEN 1024

/* One row of /fingerprint/ranks: what one rank sees of its node and its own binding. Strings
 * are NUL-terminated; "none" means looked for and not there, "unknown" means it could not be
 * asked; integers are -1 when unknown. The field table below describes every member. */
typedef struct {
    int rank;
    int node;
    int local_rank;
    char host[SP_HOST_LEN];
    /* this rank only (never compared) */
    char cpuset[64];      /* the rank's CPU binding, hwloc list syntax ("0-3,8") */
    char numa[32];        /* NUMA nodes the binding covers ("0" or "0,1") */
    char nics_near[128];  /* network OS devices whose locality meets the binding */
    char gpu_uuid[48];
    char gpu_bus_id[32];
    char gpu_source[24];  /* how the GPU was chosen: "backend", "local rank" or "none" */
    /* compared: within a node against the node's majority, across nodes against all nodes */
    char cpu_model[96];
    char kernel[64];
    char mpi[96];
    char ucx[32];
    char nccl[32];
    char cuda_runtime[16];
    char cuda_driver[16];
    char hdf5[16];
    char nvml[48];        /* "ok", "absent" (no libnvidia-ml.so.1) or NVML's error */
    char driver[32];      /* GPU driver version (NVML) */
    char nics[128];       /* every network/OpenFabrics OS device of the node */
    char gpus[128];       /* the node's GPUs as hwloc names them ("cuda0,cuda1") */
    char gpu_name[64];
    int sm_clock_mhz;     /* application clock, else the maximum clock */
    int mem_clock_mhz;
    int power_limit_w;    /* enforced power limit */
    int ecc;              /* 1 on, 0 off, -1 unknown */
    int nvlinks;          /* active NVLinks, -1 unknown */
    int sm_clock_now_mhz; /* current clocks when the fingerprint was taken, -1 unknown */
    int mem_clock_now_mhz;
    char throttle[96];    /* active clock event (throttle) reasons, "none"; "" unknown */
    /* set by sp_fp_majority */
    int differs;          /* 1: a compared field differs from the majority of the rank's node */
    char differs_in[SP_FP_FLAGS_LEN]; /* those fields, comma-separated */
} sp_fp_rank_t;

/* One row of /fingerprint/nodes. */
typedef struct {
    int node;
    int nranks;
    char host[SP_HOST_LEN];              /* host of the node's lowest rank */
    int differs;                         /* 1: a field differs from the majority of all nodes */
    char differs_in[SP_FP_FLAGS_LEN];    /* those fields, comma-separated */
    char mixed_in[SP_FP_FLAGS_LEN];      /* fields on which the node's own ranks disagree */
    char key[SP_FP_KEY_LEN];             /* "field=value;..." of the node's compared fields */
} sp_fp_node_t;

typedef enum { SP_FP_STR, SP_FP_INT } sp_fp_kind_t;
typedef enum {
    SP_FP_ID,      /* identity: rank, node, host */
    SP_FP_RANK,    /* the rank's own binding and device identity: recorded, never compared */
    SP_FP_COMPARE, /* compared against the majority */
    SP_FP_FLAG,    /* the outcome of the comparison */
} sp_fp_scope_t;

typedef struct {
    const char *name;
    size_t offset;
    size_t size;
    sp_fp_kind_t kind;
    sp_fp_scope_t scope;
} sp_fp_field_t;

/* Every member of sp_fp_rank_t, in order; the HDF5 type, the majority rule, the test override
 * and the reports are all driven by this table. */
extern const sp_fp_field_t sp_fp_fields[];
extern const int sp_fp_nfields;

/* Index of a field by name, -1 when there is none. */
int sp_fp_field_find(const char *name);

/* Field f of r as text (integers in decimal, "-1" when unknown) into buf. */
void sp_fp_field_str(const sp_fp_rank_t *r, int f, char *buf, size_t len);

/* Set field f of r from text. SP_ERR_INVALID for an integer field and a non-integer value. */
sp_status_t sp_fp_field_set(sp_fp_rank_t *r, int f, const char *value);

/*
 * The majority rule, without MPI. ranks[nranks] have .node in 0..nnodes-1. For each compared
 * field:
 *  - a node's value is the most common value among its ranks (a tie: its lowest rank's value);
 *    a rank differing from a unique most common value of its node is flagged (ranks[i].differs
 *    and .differs_in), a field with a tie inside a node is named in the node's mixed_in;
 *  - the majority of all nodes is the unique most common node value; a node differing from it is
 *    flagged (nodes[d].differs, .differs_in); a tie flags no node and names the field in
 *    ties (comma-separated, may be NULL).
 * nodes[nnodes] are filled completely (node, nranks, host, key, flags). majority, when not
 * NULL, has room for sp_fp_nfields pairs and receives the majority of all nodes for each compared
 * field in table order (key: field name, value: the majority or "mixed" for a tie);
 * *nmajority_p (may be NULL) how many. Returns SP_ERR_INVALID for a rank with a node out of
 * range, SP_ERR_NOMEM.
 */
sp_status_t sp_fp_majority(sp_fp_rank_t *ranks, int nranks, sp_fp_node_t *nodes, int nnodes,
                           sp_kv_t *majority, int *nmajority_p, char *ties, size_t tieslen);

/* This rank's fingerprint: hardware from hwloc, /proc/cpuinfo and NVML (when the library is
 * there), versions from the process and from backend_kv (the backend's own versions(), keys
 * nccl_version_library, cuda_runtime, cuda_driver; may be NULL). bus_id is the PCI bus id of the
 * GPU the rank uses ("" or "-" when it uses none or it is not known). Applies the test-only
 * override SCALEPROBE_TEST_FINGERPRINT="field=value" of this process's environment. Never fails:
 * what cannot be found is recorded as such. */
void sp_fp_collect(const sp_topo_t *topo, const sp_kv_t *backend_kv, int nbackend,
                   const char *bus_id, sp_fp_rank_t *out);

/* Collect on every rank and gather to rank 0: *all_p receives nranks rows (malloc'ed, caller
 * frees) on rank 0, NULL elsewhere. Collective over comm; every rank returns the same status
 * (SP_ERR_NOMEM when rank 0 cannot hold the rows). */
sp_status_t sp_fp_gather(MPI_Comm comm, const sp_topo_t *topo, const sp_kv_t *backend_kv,
                         int nbackend, const char *bus_id, sp_fp_rank_t **all_p);

#endif
