/* How `coll` samples a point and which number it reports (--method): the default method (samples
 * to a CI target, docs/METHODOLOGY.md) or a peer's, nccl-tests' or OSU's, reproduced from their
 * documented behaviour. The names and the peers' arithmetic: pure C, no MPI, unit tested. */
#ifndef SP_METHOD_H
#define SP_METHOD_H

#include <stddef.h>
#include <stdint.h>

#include "coll_options.h"

typedef enum {
    SP_METHOD_DEFAULT = 0, /* batches to a CI target, median of the max over ranks */
    SP_METHOD_NCCL_TESTS,  /* one host-timed batch of -n operations, -a over ranks */
    SP_METHOD_OSU,         /* -n barrier-separated single operations, mean of rank means */
    SP_METHOD_COUNT
} sp_method_t;

/* "default", "nccl-tests", "osu": the --method names and the /coll attribute `method`. */
extern const char *const sp_method_names[SP_METHOD_COUNT];

/* How each timed operation is issued (--issue): a blocking call of the measuring thread, or an
 * operation enqueued on a backend stream as the proxy's lanes issue theirs (docs/METHODOLOGY.md,
 * "Issue mode"). */
typedef enum {
    SP_ISSUE_BLOCKING = 0, /* coll_run / coll_batch from the measuring thread */
    SP_ISSUE_STREAM,       /* stream_coll on a stream of the backend, waited for by stream_sync */
    SP_ISSUE_COUNT
} sp_issue_t;

/* "blocking", "stream": the --issue names and the /coll attribute `issue`. */
extern const char *const sp_issue_names[SP_ISSUE_COUNT];

/* 1 when argv[first..argc) asks for --issue stream (either "--issue stream" or
 * "--issue=stream"): read before MPI starts, to choose the thread level (the stream's thread
 * calls MPI on the host backend); the option parser checks the value later. */
int sp_issue_stream_asked(int argc, char **argv, int first);

/* nccl-tests' -a: which time over ranks is reported. */
typedef enum {
    SP_OVER_RANKS_RANK0 = 0, /* rank 0's own value */
    SP_OVER_RANKS_MEAN = 1,  /* the mean over ranks (nccl-tests' default) */
    SP_OVER_RANKS_MIN = 2,
    SP_OVER_RANKS_MAX = 3,
} sp_over_ranks_t;

#define SP_NCCLTESTS_ITERS 20   /* nccl-tests' default -n */
#define SP_OSU_LARGE_BYTES 8192 /* OSU: sizes above this are "large" */
#define SP_OSU_ITERS 1000       /* OSU's default -i at or below SP_OSU_LARGE_BYTES */
#define SP_OSU_ITERS_LARGE 100  /* ... and above */
#define SP_OSU_SKIP 200         /* OSU's default -x at or below SP_OSU_LARGE_BYTES */
#define SP_OSU_SKIP_LARGE 10    /* ... and above */

/* Timed operations of a point of `bytes` (the size column) under opts' method: -n when given;
 * else nccl-tests' 20, or OSU's 1000 (<= 8 KiB) / 100. 0 for the default method with -n 0. */
long sp_method_iters(const sp_coll_opts_t *opts, uint64_t bytes);

/* Untimed warm-up operations of a point: -w; with --method osu and no -w, OSU's 200 (<= 8 KiB)
 * / 10. */
long sp_method_warmup(const sp_coll_opts_t *opts, uint64_t bytes);

/* Samples a point can store (the sweep's buffers): -n or --max-samples for the default method,
 * 1 for nccl-tests (one batch), the largest iteration count for OSU. */
size_t sp_method_max_samples(const sp_coll_opts_t *opts);

/* One value over ranks, nccl-tests' -a: t_us[0] (RANK0), mean, min or max of t_us[0..nranks).
 * NaN for nranks < 1 or an unknown mode. */
double sp_method_over_ranks(const double *t_us, int nranks, sp_over_ranks_t how);

/* nccl-tests' time per operation, microseconds: the host-timed batch of iters operations, from
 * before the first launch to after completion, divided by iters. NaN for iters < 1. */
double sp_nccltests_op_us(uint64_t batch_ns, long iters);

/* OSU's latency of one rank: the mean of its n timed operations (microseconds); NaN for n 0. */
double sp_osu_rank_us(const double *op_us, size_t n);

/* OSU's numbers over ranks from each rank's latency: the average (the one OSU prints), and the
 * minimum and maximum (printed with OSU's -f). Outputs NaN for nranks < 1. */
void sp_osu_over_ranks(const double *rank_us, int nranks, double *avg_p, double *min_p,
                       double *max_p);

#endif
