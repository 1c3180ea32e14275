/* The collective table: each collective is described by four hooks, as nccl-tests describes
 * them (counts for a size, input fill and expected output, bandwidth factor, the backend call).
 * Adding a collective is one file, its line in coll.c's table (and enum), and its call in each
 * backend's coll_run. */
#ifndef SP_COLL_H
#define SP_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"
#include "pattern.h"
#include "status.h"

typedef enum {
    SP_COLL_ALL_REDUCE = 0,
    SP_COLL_ALL_GATHER,
    SP_COLL_REDUCE_SCATTER,
    SP_COLL_BROADCAST,
    SP_COLL_REDUCE,
    SP_COLL_ALLTOALL,
    SP_COLL_SENDRECV,
    SP_COLL_GATHER,
    SP_COLL_SCATTER,
    SP_COLL_COUNT
} sp_coll_kind_t;

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
    int has_redop;
    int has_root;

    /* counts for a requested size of `count` elements of elt_size bytes on nranks */
    void (*get_counts)(size_t count, size_t elt_size, int nranks, sp_coll_counts_t *out_p);

    /* bytes moved per rank that algbw is computed from, and the busbw factor */
    double (*algbw_bytes)(const sp_coll_args_t *args);
    double (*busbw_factor)(int nranks);

    /* 1 when this rank has an output to check (e.g. only the root of reduce) */
    int (*has_output)(const sp_coll_args_t *args);

    /* the expected output of this rank as a pattern descriptor (pattern.h); the input is the
     * reduction pattern when has_redop, else the data pattern, of this rank */
    void (*describe_output)(const sp_coll_args_t *args, sp_pattern_t *out_p);
} sp_coll_t;

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

/* Input and expected-output patterns of this rank (what a device kernel evaluates). */
void sp_coll_patterns(const sp_coll_t *coll, const sp_coll_args_t *args, sp_pattern_t *in_p,
                      sp_pattern_t *out_p);

/* Count the output elements that differ from expected; output holds recv_count elements (host
 * memory). 0 when this rank has no output. */
uint64_t sp_coll_check(const sp_coll_t *coll, const sp_coll_args_t *args, const void *output);

/* Expected value of output element i on this rank (one element; for tests and tools). */
double sp_coll_expected(const sp_coll_t *coll, const sp_coll_args_t *args, size_t i);

/* Describe one operation: counts for a requested size in bytes, as the collective computes
 * them. redop and root are stored as given (the hooks ignore them where they do not apply). */
void sp_coll_args_init(sp_coll_args_t *args, sp_coll_kind_t kind, int rank, int nranks,
                       sp_dtype_t dtype, sp_redop_t redop, int root, int in_place, uint64_t bytes);

/* Write this rank's input into input[0..send_count) (host memory). */
void sp_coll_fill(const sp_coll_t *coll, const sp_coll_args_t *args, void *input);

#endif
