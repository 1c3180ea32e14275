/* The option table of `scaleprobe proxy` and the engine configuration derived from it. */
#include "proxy_options.h"

#include <stdio.h>
#include <string.h>

#include "backend.h"

const char *const sp_proxy_dp_mode_names[2] = {"ddp", "fsdp"};
const char *const sp_proxy_grad_reduce_names[2] = {"fp32", "bf16"};
const char *const sp_proxy_compute_names[2] = {"timed", "gemm"};
static const char *const on_off[] = {"on", "off"};

#define OFF(field) offsetof(sp_proxy_opts_t, field)

static const sp_opt_def_t proxy_defs[] = {
    {"model", 'm', SP_OPT_STRING, OFF(model), "auto", "NAME",
     "model preset: gpt3-175b, llama3-8b, llama3-70b, llama3-405b, tiny; auto: tiny on the "
     "host backend (a step well under a second), llama3-8b on GPUs",
     0, -1, NULL, 0},
    {"layers", 0, SP_OPT_INT, OFF(layers), "0", "N", "override the preset's layers; default: the preset's", 1,
     1e6, NULL, 0},
    {"hidden", 0, SP_OPT_INT, OFF(hidden), "0", "N", "override the hidden size; default: the preset's", 1, 1e7,
     NULL, 0},
    {"ffn", 0, SP_OPT_INT, OFF(ffn), "0", "N",
     "override the MLP size (the presets' is not scaled with --hidden); default: the preset's", 1, 1e8, NULL,
     0},
    {"seq", 0, SP_OPT_INT, OFF(seq), "0", "N", "override the sequence length; default: the preset's", 1, 1e8,
     NULL, 0},
    {"micro-batch", 0, SP_OPT_INT, OFF(micro_batch), "0", "N",
     "override the micro-batch size (preset 1); default: the preset's", 1, 1e6, NULL, 0},
    {"heads", 0, SP_OPT_INT, OFF(heads), "0", "N",
     "override the attention heads (key/value heads follow for multi-head presets); default: the preset's", 1,
     1e6, NULL, 0},
    {"vocab", 0, SP_OPT_INT, OFF(vocab), "0", "N", "override the vocabulary size; default: the preset's", 1,
     1e9, NULL, 0},
    {"causal", 0, SP_OPT_FLAG, OFF(causal), NULL, NULL,
     "count attention FLOPs with the causal mask (half of s^2); default: Megatron's full s^2", 0,
     -1, NULL, 0},
    {"tp", 't', SP_OPT_INT, OFF(tp), "1", "N", "tensor-parallel size (consecutive ranks)", 1, 1e6,
     NULL, 0},
    {"pp", 'p', SP_OPT_INT, OFF(pp), "0", "N",
     "pipeline stages; default: world / (tp x dp), with dp 1 when neither is given", 1, 1e6, NULL,
     0},
    {"dp", 0, SP_OPT_INT, OFF(dp), "0", "N", "data-parallel size; default: world / (tp x pp)", 1, 1e6,
     NULL, 0},
    {"quiet", 0, SP_OPT_FLAG, OFF(quiet), NULL, NULL,
     "no progress line on stderr (shown only when stderr is a terminal)", 0, -1, NULL, 0},
    {"sequence-parallel", 0, SP_OPT_FLAG, OFF(sequence_parallel), NULL, NULL,
     "tensor parallelism with sequence parallelism: all-gather + reduce-scatter per block", 0, -1,
     NULL, 0},
    {"untie-embeddings-and-output-weights", 0, SP_OPT_FLAG, OFF(untie_embeddings), NULL, NULL,
     "Megatron-LM's flag: separate input embedding and output weights, so no all-reduce of the "
     "embedding gradient between the first and the last stage; default: tied (pp > 1: one "
     "all-reduce of vocab/tp x hidden gradients per step)",
     0, -1, NULL, 0},
    {"dp-mode", 0, SP_OPT_CHOICE, OFF(dp_mode), "ddp", "MODE",
     "data parallelism: ddp (bucketed gradient all-reduce) or fsdp (ZeRO-3 gathers per layer, "
     "reduce-scatters per layer and microbatch)",
     0, -1, sp_proxy_dp_mode_names, 2},
    {"use-distributed-optimizer", 0, SP_OPT_FLAG, OFF(dist_opt), NULL, NULL,
     "Megatron-LM's flag, with --dp-mode ddp: the gradient buckets are reduce-scattered instead "
     "of all-reduced and all-gathered as parameters before their first forward of the next step "
     "(buckets padded to a multiple of lcm(dp, 128) elements); --overlap covers both",
     0, -1, NULL, 0},
    {"bucket-mb", 0, SP_OPT_DOUBLE, OFF(bucket_mib), "25", "MIB", "DDP gradient bucket size, MiB",
     1e-6, 1e6, NULL, 0},
    {"grad-reduce-dtype", 0, SP_OPT_CHOICE, OFF(grad_reduce), "fp32", "fp32|bf16",
     "dtype of the DDP gradient all-reduce and the FSDP reduce-scatter: fp32 (Megatron-LM's "
     "default with bf16 parameters) or bf16 (its --grad-reduce-in-bf16; half the bytes)",
     0, -1, sp_proxy_grad_reduce_names, 2},
    {"overlap", 0, SP_OPT_CHOICE, OFF(overlap), "on", "ON|OFF",
     "overlap data-parallel communication with compute (off: after it / before it): both the "
     "gradient reductions and the parameter gathers",
     0, -1, on_off, 2},
    {"overlap-grad-reduce", 0, SP_OPT_FLAG, OFF(overlap_grad_reduce), NULL, NULL,
     "Megatron-LM's flag: with either of its two overlap flags, the gradient reductions "
     "overlap compute only if it is given, and --overlap is not taken",
     0, -1, NULL, 0},
    {"overlap-param-gather", 0, SP_OPT_FLAG, OFF(overlap_param_gather), NULL, NULL,
     "Megatron-LM's flag: the parameter gathers (--use-distributed-optimizer, --dp-mode fsdp) "
     "overlap compute only if it is given; needs --overlap-grad-reduce",
     0, -1, NULL, 0},
    {"schedule", 's', SP_OPT_CHOICE, OFF(schedule), "1f1b", "NAME",
     "pipeline schedule (a wrong name lists the choices; docs/METHODOLOGY.md describes each)",
     0, -1, sp_schedule_names, SP_SCHED_COUNT},
    {"microbatches", 0, SP_OPT_INT, OFF(microbatches), "8", "N", "microbatches per step", 1, 1e5,
     NULL, 0},
    {"chunks", 0, SP_OPT_INT, OFF(chunks), "1", "N",
     "model chunks per stage (interleaved: 2 or more)", 1, 1024, NULL, 0},
    {"microbatch-group-size", 0, SP_OPT_INT, OFF(mb_group), "0", "N",
     "interleaved: microbatches per group, Megatron-LM's "
     "--microbatch-group-size-per-virtual-pipeline-stage, in [pp, microbatches]; 0: pp",
     0, 1e5, NULL, 0},
    {"tflops", 0, SP_OPT_DOUBLE, OFF(tflops), "0.5", "R",
     "device rate, TFLOP/s: a compute op lasts its FLOPs / R", 1e-6, 1e6, NULL, 0},
    {"compute", 0, SP_OPT_CHOICE, OFF(compute), "timed", "timed|gemm",
     "what a compute task runs: timed (a wait of its FLOPs / --tflops on the host, a spin kernel "
     "on GPUs: a pure-schedule run) or gemm (the layer's real GEMMs on the compute lane: cuBLAS "
     "in the model dtype with fp32 accumulate on GPUs, fp32 OpenBLAS on the host; the rate is "
     "measured at start-up instead of --tflops)",
     0, -1, sp_proxy_compute_names, 2},
    {"compute-threads", 0, SP_OPT_INT, OFF(compute_threads), "1", "N",
     "--compute gemm: BLAS threads per rank (pinned with openblas_set_num_threads)", 1, 1024,
     NULL, 0},
    {"max-inflight", 0, SP_OPT_INT, OFF(max_inflight), "16", "N",
     "tasks enqueued ahead and not yet complete on one lane (stream), at most; 4N on all lanes "
     "together (at least 13). Keeps the enqueuing thread out of a full launch queue",
     1, 256, NULL, 0},
    {"peak-tflops", 0, SP_OPT_DOUBLE, OFF(peak_tflops), "0", "R",
     "the hardware's peak TFLOP/s per device, for MFU; default: no MFU", 1e-6, 1e6, NULL, 0},
    {"steps", 'n', SP_OPT_INT, OFF(steps), "0", "N",
     "measured steps; default: until the step time's 95% CI is within --epsilon", 1, 1e6, NULL, 0},
    {"epsilon", 0, SP_OPT_DOUBLE, OFF(epsilon), "0.02", "E",
     "relative half-width of the step time's CI to stop at", 1e-6, 1, NULL, 0},
    {"min-steps", 0, SP_OPT_INT, OFF(min_steps), "6", "N", "measured steps before stopping", 6,
     1e6, NULL, 0},
    {"max-steps", 0, SP_OPT_INT, OFF(max_steps), "50", "N", "measured steps at most", 1, 1e6,
     NULL, 0},
    {"max-time", 0, SP_OPT_DOUBLE, OFF(max_time), "60", "SEC",
     "stop measuring after this time even if the CI is wider", 0.001, 1e7, NULL, 0},
    {"warmup-steps", 'w', SP_OPT_INT, OFF(warmup_steps), "1", "N", "steps run before measuring", 0,
     1e6, NULL, 0},
    SP_RUN_OPT_ROWS(sp_proxy_opts_t, run, "proxy"),
};

const sp_opt_table_t sp_proxy_opt_table = {
    .command = "proxy",
    .summary = "Training proxy: a transformer's training step on streams (DP x PP x TP, "
               "Megatron-LM's\npipeline schedules, DDP or FSDP), with bubbles, overlap and "
               "exposed communication\nper rank. Launch with mpirun or srun.",
    .defs = proxy_defs,
    .ndefs = (int)(sizeof(proxy_defs) / sizeof(proxy_defs[0])),
};

sp_dtype_t sp_proxy_grad_dtype(const sp_proxy_opts_t *opts)
{
    return opts->grad_reduce == 1 ? SP_DTYPE_BFLOAT16 : SP_DTYPE_FLOAT;
}

const char *sp_proxy_embedding_desc(const sp_program_config_t *cfg)
{
    if (!cfg->tied_embeddings) {
        return "untied";
    }
    return sp_program_embedding_group(cfg, 0) >= 0
               ? "tied (gradient all-reduced by the first and the last stage)"
               : "tied (one stage holds both ends)";
}

const char *sp_proxy_overlap_desc(int grad, int param, int gathers)
{
    if (!gathers || grad == param) {
        return grad ? "on" : "off";
    }
    return grad ? "on for gradient reductions, off for parameter gathers"
                : "off for gradient reductions, on for parameter gathers";
}

sp_sched_kind_t sp_proxy_sched_kind(const sp_proxy_opts_t *opts)
{
    return (sp_sched_kind_t)opts->schedule; /* the names follow sp_sched_kind_t's order */
}

sp_status_t sp_proxy_model(const sp_proxy_opts_t *opts, sp_model_t *model_p)
{
    sp_model_t model;
    sp_status_t status = sp_model_preset(opts->model, &model);

    if (status != SP_OK) {
        return status;
    }
    model.layers = opts->layers > 0 ? opts->layers : model.layers;
    model.hidden = opts->hidden > 0 ? opts->hidden : model.hidden;
    model.ffn = opts->ffn > 0 ? opts->ffn : model.ffn;
    model.seq = opts->seq > 0 ? opts->seq : model.seq;
    model.micro_batch = opts->micro_batch > 0 ? opts->micro_batch : model.micro_batch;
    model.causal = opts->causal;
    model.vocab = opts->vocab > 0 ? opts->vocab : model.vocab;
    if (opts->heads > 0) {
        /* grouped-query presets keep their key/value heads when they still divide */
        model.kv_heads = (model.kv_heads == 0 || model.kv_heads == model.heads ||
                          opts->heads % model.kv_heads != 0)
                             ? 0
                             : model.kv_heads;
        model.heads = opts->heads;
    }
    *model_p = model;
    return SP_OK;
}

void sp_proxy_resolve_model(sp_proxy_opts_t *opts, int gpu)
{
    if (strcmp(opts->model, "auto") == 0) {
        snprintf(opts->model, sizeof(opts->model), "%s", gpu ? "llama3-8b" : "tiny");
    }
}

/* Whether this run will be on GPUs: --backend nccl, or auto with the nccl backend built and a
 * GPU visible (what sp_backend_open will choose). Counting the devices creates no CUDA context,
 * so the backend still sets CUDA_DEVICE_MAX_CONNECTIONS before the context reads it. */
static int runs_on_gpu(const sp_proxy_opts_t *opts)
{
    char why[256];

    if (opts->run.backend == SP_BACKEND_NCCL) {
        return 1;
    }
    return opts->run.backend == SP_BACKEND_AUTO && sp_backend_have_nccl() &&
           sp_backend_gpu_count(why, sizeof(why)) > 0;
}

sp_status_t sp_proxy_opts_overlap(sp_proxy_opts_t *opts, const sp_opt_table_t *table,
                                  const unsigned char *seen, char *err, size_t errlen)
{
    int overlap_given = 0, megatron = opts->overlap_grad_reduce || opts->overlap_param_gather;

    for (int i = 0; i < table->ndefs; i++) {
        overlap_given |= seen[i] && strcmp(table->defs[i].long_name, "overlap") == 0;
    }
    if (opts->dist_opt && opts->dp_mode == SP_DP_FSDP) {
        snprintf(err, errlen, "--use-distributed-optimizer needs --dp-mode ddp (fsdp shards the "
                 "parameters itself)");
        return SP_ERR_INVALID;
    }
    if (megatron && overlap_given) {
        snprintf(err, errlen, "give --overlap or Megatron-LM's --overlap-grad-reduce and "
                 "--overlap-param-gather, not both");
        return SP_ERR_INVALID;
    }
    if (opts->overlap_param_gather && !opts->overlap_grad_reduce) {
        snprintf(err, errlen, "--overlap-param-gather needs --overlap-grad-reduce (as in "
                 "Megatron-LM)");
        return SP_ERR_INVALID;
    }
    if (opts->overlap_param_gather && !opts->dist_opt && opts->dp_mode != SP_DP_FSDP) {
        snprintf(err, errlen, "--overlap-param-gather needs --use-distributed-optimizer or "
                 "--dp-mode fsdp (plain DDP gathers no parameters)");
        return SP_ERR_INVALID;
    }
    opts->grad_overlap = megatron ? opts->overlap_grad_reduce : opts->overlap == 0;
    opts->param_overlap = megatron ? opts->overlap_param_gather : opts->overlap == 0;
    return SP_OK;
}

sp_status_t sp_proxy_opts_parse(int argc, char **argv, int first, sp_proxy_opts_t *opts,
                                int *help_p, char *err, size_t errlen)
{
    sp_model_t model;
    char why[256];
    sp_status_t status;

    unsigned char seen[64] = {0};

    memset(opts, 0, sizeof(*opts));
    if (sp_proxy_opt_table.ndefs > (int)sizeof(seen)) {
        snprintf(err, errlen, "internal: the proxy has more options than its parser tracks");
        return SP_ERR_INVALID;
    }
    status = sp_opts_parse(&sp_proxy_opt_table, argc, argv, first, opts, help_p, seen, err, errlen);
    if (status != SP_OK || *help_p) {
        return status;
    }
    if (sp_proxy_opts_overlap(opts, &sp_proxy_opt_table, seen, err, errlen) != SP_OK) {
        return SP_ERR_INVALID;
    }
    if (strcmp(opts->model, "auto") == 0) {
        sp_proxy_resolve_model(opts, runs_on_gpu(opts));
    }
    if (sp_proxy_model(opts, &model) != SP_OK) {
        char known[256] = "";
        size_t used = 0;
        for (int i = 0; i < sp_model_preset_count() && used < sizeof(known); i++) {
            used += (size_t)snprintf(known + used, sizeof(known) - used, "%s%s", i ? ", " : "",
                                     sp_model_preset_name(i));
        }
        snprintf(err, errlen, "unknown --model '%.64s' (%s)", opts->model, known);
        return SP_ERR_INVALID;
    }
    if (sp_model_check(&model, why, sizeof(why)) != SP_OK) {
        snprintf(err, errlen, "invalid model: %s", why);
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

sp_status_t sp_proxy_layout(const sp_proxy_opts_t *opts, int nranks, sp_layout_t *layout_p,
                            char *err, size_t errlen)
{
    long tp = opts->tp, pp = opts->pp, dp = opts->dp;

    if (pp == 0 && dp == 0) {
        dp = 1;
    }
    if (pp == 0 || dp == 0) {
        long known = tp * (pp ? pp : dp);
        if (nranks % known != 0) {
            snprintf(err, errlen, "the world of %d ranks does not divide by tp %ld x %s %ld",
                     nranks, tp, pp ? "pp" : "dp", pp ? pp : dp);
            return SP_ERR_INVALID;
        }
        if (pp == 0) {
            pp = nranks / known;
        } else {
            dp = nranks / known;
        }
    }
    layout_p->tp = (int)tp;
    layout_p->pp = (int)pp;
    layout_p->dp = (int)dp;
    layout_p->v = (int)opts->chunks;
    return SP_OK;
}

sp_status_t sp_proxy_opts_check_world(const sp_proxy_opts_t *opts, int nranks, char *err,
                                      size_t errlen)
{
    sp_layout_t layout;
    sp_layout_target_t target;
    sp_model_t model;
    sp_sched_kind_t kind = sp_proxy_sched_kind(opts);
    const char *why;
    int p;

    if (sp_proxy_layout(opts, nranks, &layout, err, errlen) != SP_OK) {
        return SP_ERR_INVALID;
    }
    if (sp_proxy_model(opts, &model) != SP_OK) {
        snprintf(err, errlen, "unknown --model '%.64s'", opts->model);
        return SP_ERR_INVALID;
    }
    target.world = nranks;
    target.ranks_per_node = 0; /* the node check is a warning, logged by the command */
    target.layers = model.layers;
    target.heads = model.heads;
    if (sp_layout_check(&layout, &target, NULL, err, errlen) != SP_OK) {
        return SP_ERR_INVALID;
    }
    p = layout.pp;
    why = sp_schedule_why_invalid_grouped(kind, p, (int)opts->microbatches, (int)opts->chunks,
                                          (int)opts->mb_group);
    if (why != NULL && opts->mb_group > 0) {
        snprintf(err, errlen, "schedule %s cannot run with pp %d, %ld microbatches, %ld chunks and "
                 "--microbatch-group-size %ld: %s", sp_schedule_kind_name(kind), p,
                 opts->microbatches, opts->chunks, opts->mb_group, why);
        return SP_ERR_INVALID;
    }
    if (why != NULL) {
        snprintf(err, errlen, "schedule %s cannot run with pp %d, %ld microbatches and %ld "
                 "chunks: %s", sp_schedule_kind_name(kind), p, opts->microbatches, opts->chunks,
                 why);
        return SP_ERR_INVALID;
    }
    if (opts->steps == 0 && opts->max_steps < opts->min_steps) {
        snprintf(err, errlen, "--max-steps %ld is below --min-steps %ld", opts->max_steps,
                 opts->min_steps);
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

sp_status_t sp_proxy_program_config(const sp_proxy_opts_t *opts, const sp_layout_t *layout,
                                    sp_program_config_t *cfg_p)
{
    sp_model_t model;
    sp_model_flops_t fl;
    sp_status_t status = sp_proxy_model(opts, &model);
    size_t elt;

    if (status == SP_OK) {
        status = sp_model_flops(&model, layout->tp, &fl);
    }
    if (status != SP_OK) {
        return status;
    }
    elt = sp_dtype_size(model.dtype);
    memset(cfg_p, 0, sizeof(*cfg_p));
    cfg_p->kind = sp_proxy_sched_kind(opts);
    cfg_p->p = layout->pp;
    cfg_p->m = (int)opts->microbatches;
    cfg_p->v = layout->v;
    cfg_p->mb_group = (int)opts->mb_group;
    cfg_p->tp = layout->tp;
    cfg_p->dp = layout->dp;
    cfg_p->sequence_parallel = opts->sequence_parallel;
    cfg_p->dp_mode = opts->dp_mode;
    cfg_p->dist_opt = opts->dist_opt;
    cfg_p->overlap = opts->grad_overlap;
    cfg_p->overlap_param = opts->param_overlap;
    cfg_p->layers_per_chunk = (int)(model.layers / ((long)layout->pp * layout->v));
    cfg_p->dtype = model.dtype;
    cfg_p->grad_dtype = sp_proxy_grad_dtype(opts);
    cfg_p->flops_proj = fl.attn_proj_fwd;
    cfg_p->flops_core = fl.attn_core_fwd;
    cfg_p->flops_mlp = fl.mlp_fwd;
    cfg_p->flops_logits = fl.logits_fwd;
    cfg_p->flops_per_ns = opts->tflops * 1e3; /* TFLOP/s = 1e3 FLOP/ns */
    cfg_p->tp_elements = (uint64_t)model.micro_batch * (uint64_t)model.seq * (uint64_t)model.hidden;
    cfg_p->tokens = (uint64_t)model.micro_batch * (uint64_t)model.seq;
    cfg_p->p2p_bytes = sp_model_p2p_bytes(&model, layout->tp, opts->sequence_parallel);
    cfg_p->layer_param_bytes = sp_model_layer_param_bytes(&model, layout->tp);
    cfg_p->logits_param_bytes =
        (uint64_t)model.vocab * (uint64_t)model.hidden / (uint64_t)layout->tp * elt;
    cfg_p->tied_embeddings = !opts->untie_embeddings;
    sp_model_sp_params(&model, &cfg_p->sp_layer_params, &cfg_p->sp_final_params);
    cfg_p->bucket_bytes = (uint64_t)(opts->bucket_mib * 1048576.0);
    if (cfg_p->bucket_bytes < sp_dtype_size(cfg_p->grad_dtype)) {
        cfg_p->bucket_bytes = sp_dtype_size(cfg_p->grad_dtype);
    }
    return SP_OK;
}

sp_status_t sp_proxy_info(const sp_proxy_opts_t *opts, const sp_layout_t *layout,
                          sp_proxy_info_t *info_p)
{
    sp_model_t model;
    sp_status_t status = sp_proxy_model(opts, &model);

    if (status != SP_OK) {
        return status;
    }
    memset(info_p, 0, sizeof(*info_p));
    info_p->pp = layout->pp;
    info_p->tp = layout->tp;
    info_p->dp = layout->dp;
    info_p->microbatches = (int32_t)opts->microbatches;
    info_p->chunks = layout->v;
    info_p->sequence_parallel = opts->sequence_parallel;
    info_p->overlap = opts->grad_overlap;
    info_p->overlap_param_gather = opts->param_overlap;
    info_p->dist_opt = opts->dist_opt;
    info_p->causal = model.causal;
    info_p->layers = model.layers;
    info_p->hidden = model.hidden;
    info_p->heads = model.heads;
    info_p->ffn = model.ffn;
    info_p->seq = model.seq;
    info_p->micro_batch = model.micro_batch;
    info_p->vocab = model.vocab;
    info_p->tflops = opts->tflops; /* --compute gemm: the measured rate, set by the command */
    info_p->compute = opts->compute;
    info_p->compute_threads =
        opts->compute == SP_PROXY_COMPUTE_GEMM ? (int32_t)opts->compute_threads : 0;
    info_p->peak_tflops = opts->peak_tflops; /* MFU against --tflops would be about 1 - bubble */
    info_p->tokens_per_step = sp_model_tokens_per_step(&model, opts->microbatches, layout->dp);
    info_p->flops_per_step = sp_model_flops_per_step(&model, opts->microbatches, layout->dp);
    info_p->bucket_mib = opts->bucket_mib;
    return SP_OK;
}
