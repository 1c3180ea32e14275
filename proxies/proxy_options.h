/* Options of `scaleprobe proxy`: the table, the struct it fills, the checks across fields and the
 * engine configuration they give. Pure C, no MPI. */
#ifndef SP_PROXY_OPTIONS_H
#define SP_PROXY_OPTIONS_H

#include <stddef.h>

#include "layout.h"
#include "model.h"
#include "program.h"
#include "proxy_result.h"
#include "options.h"
#include "runopts.h"

typedef struct {
    char model[SP_OPT_STRLEN]; /* preset name */
    long layers;               /* overrides; 0: the preset's */
    long hidden;
    long ffn;
    long seq;
    long micro_batch;
    long heads;
    long vocab;
    long tp;      /* tensor-parallel size */
    long pp;      /* pipeline stages; 0: from the world size */
    long dp;      /* data-parallel size; 0: from the world size */
    int sequence_parallel;
    int untie_embeddings; /* --untie-embeddings-and-output-weights */
    int quiet; /* no progress line */
    int dp_mode;  /* sp_dp_mode_t: ddp, fsdp */
    int dist_opt; /* --use-distributed-optimizer (ddp only) */
    double bucket_mib;
    int grad_reduce; /* index into sp_proxy_grad_reduce_names: fp32, bf16 */
    int overlap;  /* index into on, off */
    int overlap_grad_reduce;  /* Megatron-LM's flags, as given; when either is given they */
    int overlap_param_gather; /* decide and --overlap is not (sp_proxy_opts_overlap) */
    int grad_overlap;  /* resolved: gradient reductions overlap compute */
    int param_overlap; /* resolved: parameter gathers (dist-opt, FSDP) overlap compute */
    int schedule; /* sp_sched_kind_t, an index into sp_schedule_names */
    long microbatches;
    long chunks;   /* model chunks per stage (interleaved) */
    long mb_group; /* interleaved microbatch group size; 0: pp */
    int causal;
    double tflops; /* device rate the compute times are derived from */
    int compute;   /* sp_proxy_compute_t: timed (a wait of FLOPs / tflops) or gemm (real GEMMs) */
    long compute_threads; /* --compute gemm: the BLAS's threads */
    long max_inflight;    /* tasks in flight per lane (engine.h: SP_ENGINE_INFLIGHT_*) */
    double peak_tflops; /* the hardware's peak per device, MFU's denominator; 0: no MFU */
    long steps;    /* measured steps; 0: until the step time's CI is within epsilon */
    double epsilon;
    long min_steps;
    long max_steps;
    double max_time;
    long warmup_steps;
    sp_run_opts_t run; /* -O, --force, --backend, --device, --timeout */
} sp_proxy_opts_t;

extern const sp_opt_table_t sp_proxy_opt_table;

/* The overlap options into grad_overlap and param_overlap, and the checks between the DP
 * options: --overlap (default on: both) unless Megatron-LM's --overlap-grad-reduce or
 * --overlap-param-gather is given (then each is on only when given, with Megatron's
 * constraints); seen: which rows of table were given. SP_ERR_INVALID with one message. */
sp_status_t sp_proxy_opts_overlap(sp_proxy_opts_t *opts, const sp_opt_table_t *table,
                                  const unsigned char *seen, char *err, size_t errlen);

/* Parse argv[first..argc) and check the model: SP_ERR_INVALID with one message in err. */
sp_status_t sp_proxy_opts_parse(int argc, char **argv, int first, sp_proxy_opts_t *opts,
                                int *help_p, char *err, size_t errlen);

/* --model auto (the default) becomes the host default, tiny, or on GPUs (gpu != 0) llama3-8b;
 * any other name is kept. */
void sp_proxy_resolve_model(sp_proxy_opts_t *opts, int gpu);

/* The layout for a world of nranks: tp as given, pp and dp from the world where 0 (both 0: dp
 * 1). SP_ERR_INVALID with the reason when the sizes do not divide the world. */
sp_status_t sp_proxy_layout(const sp_proxy_opts_t *opts, int nranks, sp_layout_t *layout_p,
                            char *err, size_t errlen);

/* Checks that need the world size: the layout (dp * pp * tp = world, layers divisible by
 * pp * chunks, heads by tp), the schedule valid for (pp, microbatches, chunks). */
sp_status_t sp_proxy_opts_check_world(const sp_proxy_opts_t *opts, int nranks, char *err,
                                      size_t errlen);

/* The model after the preset and the overrides (opts already parsed and checked). */
sp_status_t sp_proxy_model(const sp_proxy_opts_t *opts, sp_model_t *model_p);

/* The program configuration for a layout (stage 0; the engine sets the stage): FLOPs per TP
 * rank of each block from the model, the rate --tflops, message and parameter sizes. */
sp_status_t sp_proxy_program_config(const sp_proxy_opts_t *opts, const sp_layout_t *layout,
                                    sp_program_config_t *cfg_p);

/* The /proxy/info row. */
sp_status_t sp_proxy_info(const sp_proxy_opts_t *opts, const sp_layout_t *layout,
                          sp_proxy_info_t *info_p);

/* The schedule kind of opts->schedule. */
sp_sched_kind_t sp_proxy_sched_kind(const sp_proxy_opts_t *opts);

/* What a compute task runs: a duration at --tflops (the host's timed wait, the GPU's spin
 * kernel) or the GEMMs of its shapes (gemm_plan.h; the host backend: fp32 CBLAS). */
typedef enum { SP_PROXY_COMPUTE_TIMED = 0, SP_PROXY_COMPUTE_GEMM = 1 } sp_proxy_compute_t;
extern const char *const sp_proxy_compute_names[2];

extern const char *const sp_proxy_dp_mode_names[2];
extern const char *const sp_proxy_grad_reduce_names[2];

/* The dtype --grad-reduce-dtype names. */
sp_dtype_t sp_proxy_grad_dtype(const sp_proxy_opts_t *opts);

/* The overlap in words: "on", "off", or which of the two is on when they differ; gathers: the
 * DP mode gathers parameters (the distributed optimizer or FSDP). */
const char *sp_proxy_overlap_desc(int grad, int param, int gathers);

/* The embedding as the header line states it: "tied (gradient all-reduced by the first and the
 * last stage)", "tied (one stage holds both ends)" or "untied". Static storage. */
const char *sp_proxy_embedding_desc(const sp_program_config_t *cfg);

#endif
