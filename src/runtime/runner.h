/* The shared runner of MPI-launched subcommands (coll, proxy, node): MPI start,
 * option parsing with one message from rank 0 on bad input, cross-rank option check, the
 * output file, node map, backend, then the workload, and a clean close. Each workload's main is
 * one call to sp_runner_main. */
#ifndef SP_RUNNER_H
#define SP_RUNNER_H

#include <stddef.h>

#include "context.h"
#include "options.h"
#include "runopts.h"

/* What a workload sets beyond the shared options (all zero when it leaves extras NULL). */
typedef struct {
    int cuda_graph;          /* time batches as captured CUDA graphs (nccl) */
    int blocking;            /* nccl-tests -z: complete each collective before the next (nccl) */
    size_t timeline_events;  /* timeline capacity per rank; 0: none (a workload may size it
                              * itself later) */
    int clock_all;           /* clock synchronization of every rank (1) or node leaders (0) */
    int timeline_mpiio;      /* timeline by one collective MPI-IO write (1) or rank 0 (0) */
    int streams;             /* concurrent streams the workload opens (the proxy's lanes) */
} sp_run_extras_t;

typedef struct {
    const char *name;                 /* subcommand: "coll" */
    const sp_opt_table_t *table;      /* holds SP_RUN_OPT_ROWS over run_opts_offset */
    size_t opts_size;
    size_t run_opts_offset;           /* offsetof the embedded sp_run_opts_t */
    const char *const *event_ops;     /* names of the timeline's `op` values (static table), */
    int nevent_ops;                   /* e.g. the collectives'; NULL, 0 without a timeline */
    int auto_is_host;                 /* --backend auto means host (a build without the
                                       * workload's GPU part) */
    int thread_multiple;              /* 1: MPI_THREAD_MULTIPLE, threads of the workload call
                                       * MPI (the proxy's host streams); 0: MPI_THREAD_FUNNELED
                                       * (the watchdog calls MPI only to end the job) */
    /* may be NULL: 1 when argv[first..argc) asks for threads that call MPI (coll --issue
     * stream), read before MPI starts; then MPI_THREAD_MULTIPLE as with thread_multiple */
    int (*thread_multiple_for)(int argc, char **argv, int first);
    /* parse argv[first..argc) into opts; SP_ERR_INVALID with a message in err */
    sp_status_t (*parse)(int argc, char **argv, int first, void *opts, int *help_p, char *err,
                         size_t errlen);
    /* checks that need the world size; may be NULL */
    sp_status_t (*check_world)(const void *opts, int nranks, char *err, size_t errlen);
    /* checks that need the node map, before anything is written (err: the same on every
     * rank); collective over world; may be NULL */
    sp_status_t (*check_topology)(const void *opts, const sp_topo_t *topo, MPI_Comm world,
                                  char *err, size_t errlen);
    /* settings beyond the shared options; may be NULL */
    void (*extras)(const void *opts, sp_run_extras_t *x);
    /* the workload; collective over ctx->world */
    sp_status_t (*run)(sp_ctx_t *ctx, const void *opts);
} sp_workload_t;

/* Run a workload as the whole process does: returns the process exit code (0 ok, 2 bad input,
 * 1 failure). Initializes and finalizes MPI. */
int sp_runner_main(int argc, char **argv, const sp_workload_t *w);

#endif
