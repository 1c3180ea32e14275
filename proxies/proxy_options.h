/* Options of `scaleprobe proxy`: the table, the struct it fills, the checks across fields and the
 * engine configuration they give. Pure C, no MPI. */
#ifndef SP_PROXY_OPTIONS_H
#define SP_PROXY_OPTIONS_H

#include <stddef.h>

#include "engine.h"
#include "model.h"
#include "options.h"

typedef struct {
    char model[SP_OPT_STRLEN]; /* preset name */
    long layers;               /* overrides; 0: the preset's */
    long hidden;
    long ffn;
    long seq;
    long micro_batch;
    long pp;      /* pipeline stages; 0: the world size */
    int schedule; /* index into the schedule names: gpipe, 1f1b, interleaved */
    long microbatches;
    long chunks;   /* model chunks per stage (interleaved) */
    double tflops; /* device rate the compute times are derived from */
    long steps;
    long warmup_steps;
    int backend; /* sp_backend_kind_t */
    char output[SP_OPT_STRLEN];
    int force;
} sp_proxy_opts_t;

extern const sp_opt_table_t sp_proxy_opt_table;

/* Parse argv[first..argc) and check the model: SP_ERR_INVALID with one message in err. */
sp_status_t sp_proxy_opts_parse(int argc, char **argv, int first, sp_proxy_opts_t *opts,
                                int *help_p, char *err, size_t errlen);

/* Checks that need the world size: pp == world (no tensor or data parallelism yet), layers
 * divisible by pp * chunks, the schedule valid for (pp, microbatches, chunks). */
sp_status_t sp_proxy_opts_check_world(const sp_proxy_opts_t *opts, int nranks, char *err,
                                      size_t errlen);

/* The model after the preset and the overrides (opts already parsed and checked). */
sp_status_t sp_proxy_model(const sp_proxy_opts_t *opts, sp_model_t *model_p);

/* The engine configuration for p stages: one chunk's forward = its layers' forward FLOPs at
 * --tflops, backward twice that, messages b*s*h*sizeof(dtype). */
sp_status_t sp_proxy_engine_config(const sp_proxy_opts_t *opts, int p, sp_pp_config_t *cfg_p);

/* The schedule kind of opts->schedule. */
sp_sched_kind_t sp_proxy_sched_kind(const sp_proxy_opts_t *opts);

#endif
