/* The collective table: each collective is described by hooks in the shape of nccl-tests' four
 * (counts for a size, input fill and expected output, bandwidth factor, the backend call, which
 * is a communication pattern of the runtime's comm_call.h). Adding a collective is one file plus
 * its line in SP_COLL_LIST. */
#ifndef SP_COLL_H
#define SP_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "comm_call.h"
#include "dtype.h"
#include "pattern.h"
#include "status.h"

/* The registry, one line per collective: X(KIND, name), where the collective's file defines
 * `const sp_coll_t sp_coll_<name>` and <name> is its nccl-tests name without _perf. The order is
 * the sp_coll_kind_t order, which result files store: append, never reorder. */
#define SP_COLL_LIST(X)                                                                            \
    X(ALL_REDUCE, all_reduce)                                                                      \
    X(ALL_GATHER, all_gather)                                                                      \
    X(REDUCE_SCATTER, reduce_scatter)                                                              \
    X(BROADCAST, broadcast)                                                                        \
    X(REDUCE, reduce)                                                                              \
    X(ALLTOALL, alltoall)                                                                          \
    X(SENDRECV, sendrecv)                                                                          \
    X(GATHER, gather)                                                                              \
    X(SCATTER, scatter)                                                                            \
    X(ALLTOALLV, alltoallv)                                                                        \
    /* a new collective: one line above this one */

#define SP__COLL_ENUM(kind, name) SP_COLL_##kind,
typedef enum { SP_COLL_LIST(SP__COLL_ENUM) SP_COLL_COUNT } sp_coll_kind_t;
#undef SP__COLL_ENUM

/* Per-rank element counts for one requested size (nccl-tests' getCollByteCount). In-place, the
 * input starts at buf + send_inplace_offset * rank and the output at
 * buf + recv_inplace_offset * rank of one buffer. */
typedef struct {
    size_t send_count;
    size_t recv_count;
    size_t param_count;          /* the count passed to the call; bandwidth is computed from it */
    size_t send_inplace_offset;
    size_t recv_inplace_offset;
} sp_coll_counts_t;

/* Everything a hook needs to know about one operation on one rank. */
typedef struct {
    sp_coll_kind_t kind;
    int rank;
    int nranks;
    sp_dtype_t dtype;
    sp_redop_t redop;     /* ignored by collectives without a reduction */
    int root;             /* ignored by collectives without a root */
    int in_place;
    sp_coll_counts_t counts;
} sp_coll_args_t;

typedef struct sp_coll {
    const char *name;     /* nccl-tests' name without _perf: "all_reduce" */
    sp_coll_kind_t kind;
    sp_comm_pattern_t pattern; /* what the backend runs */
    int has_redop;
    int has_root;

    /* counts for a requested size of `count` elements of elt_size bytes on nranks */
    void (*get_counts)(size_t count, size_t elt_size, int nranks, sp_coll_counts_t *out_p);

    /* bytes moved per rank that algbw is computed from, and the busbw factor */
    double (*algbw_bytes)(const sp_coll_args_t *args);
    double (*busbw_factor)(int nranks);

    /* 1 when this rank has an output to check (e.g. only the root of reduce) */
    int (*has_output)(const sp_coll_args_t *args);

    /* The backend call's counts and peers; call_p arrives with pattern, dtype, redop, root and
     * in_place set, count = param_count, and for a per-peer pattern with v pointing at four
     * arrays of nranks entries to fill. NULL: nothing to add. */
    void (*describe_call)(const sp_coll_args_t *args, sp_comm_call_t *call_p);

    /* This rank's expected output as spans of output patterns (pattern.h), the input being the
     * reduction pattern when has_redop, else the data pattern, of this rank. spans has room for
     * one span, nranks for a per-peer pattern; returns how many it wrote. */
    size_t (*describe_output)(const sp_coll_args_t *args, sp_pattern_span_t *spans);
} sp_coll_t;

/* One operation of one rank ready for a backend: its call, input pattern and expected output.
 * Built outside timed regions (a per-peer pattern allocates its arrays); everything it points to
 * lives until sp_coll_op_cleanup. */
typedef struct {
    const sp_coll_t *coll;
    sp_coll_args_t args;
    sp_comm_call_t call;
    sp_pattern_t input;
    sp_pattern_span_t *spans; /* this rank's expected output; none when it has no output */
    size_t nspans;
    sp_pattern_span_t one_span; /* the storage of spans unless per peer */
    size_t *vstore;             /* the storage of call.v (4 * nranks), per peer */
} sp_coll_op_t;

/* The backend call of args alone, for a collective without per-peer counts (the call then
 * points to nothing); SP_ERR_UNSUPPORTED for one with them (sp_coll_op_init gives those). */
sp_status_t sp_coll_call(const sp_coll_args_t *args, sp_comm_call_t *call_p);

/* Build op from args (init/cleanup: op is caller storage). SP_ERR_NOMEM, logged, when the per-peer
 * arrays cannot be allocated; op needs no cleanup then. */
sp_status_t sp_coll_op_init(sp_coll_op_t *op, const sp_coll_args_t *args);
void sp_coll_op_cleanup(sp_coll_op_t *op);

/* The registry, indexed by sp_coll_kind_t. */
const sp_coll_t *sp_coll_get(sp_coll_kind_t kind);

/* Names in kind order, for option tables. */
extern const char *const sp_coll_names[SP_COLL_COUNT];

/* nccl-tests' per-rank rounding: count/nranks rounded down to a multiple of 16 bytes. */
size_t sp_coll_per_rank_count(size_t count, size_t elt_size, int nranks);

/* algbw and busbw in GB/s (1e9 B/s) for one operation taking time_us microseconds. busbw is NaN
 * when nranks == 1: no data crosses a link, so bus bandwidth is not meaningful. */
void sp_coll_bandwidth(const sp_coll_t *coll, const sp_coll_args_t *args, double time_us,
                       double *algbw_p, double *busbw_p);

/* Bytes shown in the size column: max(send, recv) per rank, as nccl-tests prints it. */
uint64_t sp_coll_size_bytes(const sp_coll_args_t *args);

/* Count the output elements that differ from expected; output holds recv_count elements (host
 * memory). 0 when this rank has no output; recv_count (every element) when the description
 * cannot be allocated. */
uint64_t sp_coll_check(const sp_coll_t *coll, const sp_coll_args_t *args, const void *output);

/* Expected value of output element i on this rank (one element; for tests and tools), as if it
 * had an output; NaN past the end of the output. */
double sp_coll_expected(const sp_coll_t *coll, const sp_coll_args_t *args, size_t i);

/* Describe one operation: counts for a requested size in bytes, as the collective computes
 * them. redop and root are stored as given (the hooks ignore them where they do not apply). */
void sp_coll_args_init(sp_coll_args_t *args, sp_coll_kind_t kind, int rank, int nranks,
                       sp_dtype_t dtype, sp_redop_t redop, int root, int in_place, uint64_t bytes);

/* Write this rank's input into input[0..send_count) (host memory). */
void sp_coll_fill(const sp_coll_t *coll, const sp_coll_args_t *args, void *input);

#endif
