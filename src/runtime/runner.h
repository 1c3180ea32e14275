/* The shared runner of MPI-launched subcommands (coll now, proxy and node later): MPI start,
 * option parsing with one message from rank 0 on bad input, cross-rank option check, the
 * output file, node map, backend, then the workload, and a clean close. Each workload's main is
 * one call to sp_runner_main. */
#ifndef SP_RUNNER_H
#define SP_RUNNER_H

#include <stddef.h>

#include "context.h"
#include "options.h"

typedef struct {
    const char *name;                 /* subcommand: "coll" */
    const sp_opt_table_t *table;
    size_t opts_size;
    /* parse argv[first..argc) into opts; SP_ERR_INVALID with a message in err */
    sp_status_t (*parse)(int argc, char **argv, int first, void *opts, int *help_p, char *err,
                         size_t errlen);
    /* checks that need the world size; may be NULL */
    sp_status_t (*check_world)(const void *opts, int nranks, char *err, size_t errlen);
    /* where the workload keeps -O, --force and --backend */
    char *(*output)(void *opts);
    int (*force)(const void *opts);
    int (*backend)(const void *opts);
    /* the backend's device, timeout and graph settings (node placement is filled in after) */
    void (*backend_config)(const void *opts, sp_backend_config_t *cfg);
    /* timeline capacity (events per rank, 0: none), clock synchronization of every rank (1) or
     * of node leaders (0), and the timeline written by one collective MPI-IO write (1) or by
     * rank 0 in bounded batches (0) */
    void (*timeline_config)(const void *opts, size_t *events_p, int *clock_all_p,
                            int *mpiio_p);
    /* the workload; collective over ctx->world */
    sp_status_t (*run)(sp_ctx_t *ctx, const void *opts);
} sp_workload_t;

/* Run a workload as the whole process does: returns the process exit code (0 ok, 2 bad input,
 * 1 failure). Initializes and finalizes MPI. */
int sp_runner_main(int argc, char **argv, const sp_workload_t *w);

#endif
