/* The option table of `scaleprobe proxy` and the engine configuration derived from it. */
#include "proxy_options.h"

#include <stdio.h>
#include <string.h>

#include "backend.h"

/* The schedules the engine runs, in the order of sp_sched_kind_t (ZB-H1 is not run yet). */
static const char *const sched_names[] = {"gpipe", "1f1b", "interleaved"};

#define OFF(field) offsetof(sp_proxy_opts_t, field)

static const sp_opt_def_t proxy_defs[] = {
    {"model", 'm', SP_OPT_STRING, OFF(model), "llama3-8b", "NAME",
     "model preset: gpt3-175b, llama3-8b, llama3-70b, llama3-405b", 0, -1, NULL, 0},
    {"layers", 0, SP_OPT_INT, OFF(layers), "0", "N", "override the preset's layers; 0: keep", 0,
     1e6, NULL, 0},
    {"hidden", 0, SP_OPT_INT, OFF(hidden), "0", "N", "override the hidden size; 0: keep", 0, 1e7,
     NULL, 0},
    {"ffn", 0, SP_OPT_INT, OFF(ffn), "0", "N",
     "override the MLP size (the presets' is not scaled with --hidden); 0: keep", 0, 1e8, NULL,
     0},
    {"seq", 0, SP_OPT_INT, OFF(seq), "0", "N", "override the sequence length; 0: keep", 0, 1e8,
     NULL, 0},
    {"micro-batch", 0, SP_OPT_INT, OFF(micro_batch), "0", "N",
     "override the micro-batch size (preset 1); 0: keep", 0, 1e6, NULL, 0},
    {"pp", 0, SP_OPT_INT, OFF(pp), "0", "N",
     "pipeline stages; 0: the world size (only pipeline parallelism is run: world = pp)", 0, 1e6,
     NULL, 0},
    {"schedule", 's', SP_OPT_CHOICE, OFF(schedule), "1f1b", "NAME",
     "pipeline schedule: gpipe, 1f1b or interleaved (Megatron-LM's orders)", 0, -1, sched_names, 3},
    {"microbatches", 0, SP_OPT_INT, OFF(microbatches), "8", "N", "microbatches per step", 1, 1e5,
     NULL, 0},
    {"chunks", 0, SP_OPT_INT, OFF(chunks), "1", "N",
     "model chunks per stage (interleaved: 2 or more)", 1, 1024, NULL, 0},
    {"tflops", 0, SP_OPT_DOUBLE, OFF(tflops), "0.5", "R",
     "device rate, TFLOP/s: a compute op lasts its FLOPs / R", 1e-6, 1e6, NULL, 0},
    {"steps", 'n', SP_OPT_INT, OFF(steps), "5", "N", "measured steps", 1, 1e6, NULL, 0},
    {"warmup-steps", 'w', SP_OPT_INT, OFF(warmup_steps), "1", "N", "steps run before measuring", 0,
     1e6, NULL, 0},
    {"backend", 0, SP_OPT_CHOICE, OFF(backend), "host", "NAME",
     "auto, host or nccl (the engine is tested on host streams)", 0, -1, sp_backend_names,
     SP_BACKEND_COUNT},
    {"output", 'O', SP_OPT_STRING, OFF(output), "", "PATH",
     "result file; default results/proxy-<UTC time>-<pid or job id>.h5", 0, -1, NULL, 0},
    {"force", 0, SP_OPT_FLAG, OFF(force), NULL, NULL, "overwrite an existing result file", 0, -1,
     NULL, 0},
};

const sp_opt_table_t sp_proxy_opt_table = {
    .command = "proxy",
    .summary = "Training proxy (pipeline parallelism): a transformer's pipeline schedule on "
               "streams,\nper-stage busy time and bubble against the schedule's prediction. "
               "Launch with mpirun or srun.",
    .defs = proxy_defs,
    .ndefs = (int)(sizeof(proxy_defs) / sizeof(proxy_defs[0])),
};

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
    *model_p = model;
    return SP_OK;
}

sp_status_t sp_proxy_opts_parse(int argc, char **argv, int first, sp_proxy_opts_t *opts,
                                int *help_p, char *err, size_t errlen)
{
    sp_model_t model;
    char why[256];
    sp_status_t status;

    memset(opts, 0, sizeof(*opts));
    status = sp_opts_parse(&sp_proxy_opt_table, argc, argv, first, opts, help_p, NULL, err, errlen);
    if (status != SP_OK || *help_p) {
        return status;
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

sp_status_t sp_proxy_opts_check_world(const sp_proxy_opts_t *opts, int nranks, char *err,
                                      size_t errlen)
{
    long p = opts->pp > 0 ? opts->pp : nranks;
    sp_model_t model;
    sp_sched_kind_t kind = sp_proxy_sched_kind(opts);

    if (p != nranks) {
        snprintf(err, errlen,
                 "--pp %ld must equal the world size %d (tensor and data "
                 "parallelism are not run yet)",
                 p, nranks);
        return SP_ERR_INVALID;
    }
    if (sp_proxy_model(opts, &model) != SP_OK || model.layers % (p * opts->chunks) != 0) {
        snprintf(err, errlen, "%ld layers do not divide into %ld stages x %ld chunks", model.layers,
                 p, opts->chunks);
        return SP_ERR_INVALID;
    }
    if (sp_schedule_op_count(kind, (int)p, (int)opts->microbatches, (int)opts->chunks) == 0 ||
        (kind == SP_SCHED_INTERLEAVED &&
         (p < 2 || opts->chunks < 2 || opts->microbatches % p != 0))) {
        snprintf(err, errlen,
                 "schedule %s cannot run with pp %ld, %ld microbatches and %ld "
                 "chunks (gpipe and 1f1b: chunks 1; interleaved: pp >= 2, chunks >= 2, "
                 "microbatches a multiple of pp)",
                 sched_names[opts->schedule], p, opts->microbatches, opts->chunks);
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

sp_status_t sp_proxy_engine_config(const sp_proxy_opts_t *opts, int p, sp_pp_config_t *cfg_p)
{
    sp_model_t model;
    sp_status_t status = sp_proxy_model(opts, &model);
    double chunk_layers;
    double fwd_s;

    if (status != SP_OK) {
        return status;
    }
    chunk_layers = (double)model.layers / ((double)p * (double)opts->chunks);
    fwd_s = chunk_layers * sp_model_layer_fwd_flops(&model) / (opts->tflops * 1e12);
    cfg_p->kind = sp_proxy_sched_kind(opts);
    cfg_p->m = (int)opts->microbatches;
    cfg_p->v = (int)opts->chunks;
    cfg_p->t_f_ns = (uint64_t)(fwd_s * 1e9 + 0.5);
    cfg_p->t_b_ns = 2 * cfg_p->t_f_ns;
    cfg_p->msg_bytes = (size_t)sp_model_activation_bytes(&model);
    return SP_OK;
}
