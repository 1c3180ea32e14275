/* A small MPI test harness: an assertion that fails prints rank, file, line and both values,
 * then ends the whole job with MPI_Abort, so no rank waits on a failed one. */
#ifndef SP_MPITEST_H
#define SP_MPITEST_H

#include <mpi.h>
#include <stdio.h>

#include "coll_options.h"
#include "context.h"
#include "engine.h"
#include "layout.h"

#define SP_TEST_FAIL(fmt, ...)                                                                     \
    do {                                                                                           \
        int rank_ = -1;                                                                            \
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);                                                     \
        fprintf(stderr, "FAIL rank %d %s:%d: " fmt "\n", rank_, __FILE__, __LINE__, __VA_ARGS__);  \
        fflush(stderr);                                                                            \
        MPI_Abort(MPI_COMM_WORLD, 1);                                                              \
    } while (0)

#define SP_TEST_EQ_INT(a, b)                                                                       \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            SP_TEST_FAIL("%s == %s: %lld != %lld", #a, #b, a_, b_);                                \
        }                                                                                          \
    } while (0)

#define SP_TEST_TRUE(cond)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            SP_TEST_FAIL("%s is false", #cond);                                                    \
        }                                                                                          \
    } while (0)

/* Sweep options for fast verification runs: -n 2 -w 1 -k 2. */
void sp_test_fixed_opts(sp_coll_opts_t *opts);

/* MPI, node map and host backend, as the runner sets them up. */
void sp_test_ctx_init(int *argc, char ***argv, sp_ctx_t *ctx);
void sp_test_ctx_fini(sp_ctx_t *ctx);

/* Replace the context's host backend by the nccl backend (tests/gpu). Returns 0, rank 0 printing
 * "skipped: no GPU (reason)", when no GPU can be used; fails the test on any other error. */
int sp_test_open_nccl(sp_ctx_t *ctx, int cuda_graph);

/* Median of 3 values (the proxy tests measure 3 steps; the median resists one disturbed step). */
double sp_test_median3(const double *x);

/* The TP, PP and DP communicators of a layout of the world (freed by sp_test_comms_free). */
void sp_test_comms(sp_ctx_t *ctx, const sp_layout_t *layout, sp_engine_comms_t *comms);
void sp_test_comms_free(sp_engine_comms_t *comms);

/* A program configuration with costs in nanoseconds (1 FLOP per ns): each layer's forward
 * fwd_ns (all in the projections: ZB-H1's B and W take fwd_ns each), tiny messages, float. */
void sp_test_program_config(sp_program_config_t *cfg, sp_sched_kind_t kind, const sp_layout_t *l,
                            int m, int layers_per_chunk, double fwd_ns);

#endif
