/* Unit tests of proxies/predict_sim.h: with free communication the simulated bubbles are the
 * schedules' closed forms (and the non-compute time splits into idle and exposed parts that
 * add up to the step) (GPipe, 1F1B, interleaved, ZB-H1), hand-computed steps with an
 * alpha-beta model (TP all-reduces, a pipeline message, a DDP all-reduce, FSDP gathers of the
 * embedding and the output layer, FSDP's reduce-scatters per microbatch, the distributed
 * optimizer's reduce-scatter and gather), the sweep curve's
 * interpolation, extrapolation and group-size scaling, and the errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict_sim.h"

#define MAX_P 8

/* forward FLOPs of a layer 100 + 50 + 200 = 350 at 1 FLOP/ns: t_f = 350 ns per layer; the
 * backward 700 (ZB-H1: B = 100 + 200 + 2 * 50 = 400, W = 300, so t_w <= min(t_f, t_b)) */
static sp_program_config_t cfg_make(sp_sched_kind_t kind, int p, int m, int v)
{
    return (sp_program_config_t){
        .kind = kind,
        .p = p,
        .m = m,
        .v = v,
        .tp = 1,
        .dp = 1,
        .dp_mode = SP_DP_DDP,
        .overlap = 1,
        .overlap_param = 1,
        .layers_per_chunk = 1,
        .dtype = SP_DTYPE_BFLOAT16,
        .grad_dtype = SP_DTYPE_BFLOAT16,
        .flops_proj = 100,
        .flops_core = 50,
        .flops_mlp = 200,
        .flops_logits = 0, /* equal stages: the closed forms assume them */
        .flops_per_ns = 1.0,
        .tp_elements = 64,
        .tokens = 8,
        .p2p_bytes = 256,
        .layer_param_bytes = 1024,
        .logits_param_bytes = 512,
        .bucket_bytes = 1 << 30,
    };
}

/* The data-parallel cases: p 1, m microbatches, one layer, logits 30 FLOPs, dp 2 (DDP), overlap
 * off (every reduction on the critical path). */
static sp_program_config_t dp2_serial(int m)
{
    sp_program_config_t cfg = cfg_make(SP_SCHED_1F1B, 1, m, 1);

    cfg.flops_logits = 30;
    cfg.dp = 2;
    cfg.overlap = cfg.overlap_param = 0;
    return cfg;
}

static double zero_cost(void *arg, int op, uint64_t bytes, int nranks)
{
    (void)arg;
    (void)op;
    (void)bytes;
    (void)nranks;
    return 0.0;
}

static double no_cost(void *arg, int op, uint64_t bytes, int nranks)
{
    (void)arg;
    (void)op;
    (void)bytes;
    (void)nranks;
    return NAN;
}

/* Build the p programs of cfg (stage by stage) and simulate them. */
static void run(const sp_program_config_t *cfg, sp_predict_cost_fn cost, void *arg,
                sp_predict_result_t *res)
{
    sp_program_t progs[MAX_P];

    assert_true(cfg->p <= MAX_P);
    for (int s = 0; s < cfg->p; s++) {
        sp_program_config_t c = *cfg;
        c.stage = s;
        assert_int_equal(sp_program_build(&c, &progs[s]), SP_OK);
    }
    assert_int_equal(sp_predict_run(progs, cfg->p, cfg->tp, cfg->dp, cost, arg, res), SP_OK);
    for (int s = 0; s < cfg->p; s++) {
        sp_program_free(&progs[s]);
    }
}

/* Every stage's bubble / step is (p-1)/(units + p-1), exactly: (step - busy)(units + p - 1) =
 * step (p - 1) in integer ns, and equal to the replay's own prediction. */
static void check_fraction(sp_sched_kind_t kind, int p, int m, int v, int units)
{
    sp_program_config_t cfg = cfg_make(kind, p, m, v);
    sp_predict_result_t res;

    run(&cfg, zero_cost, NULL, &res);
    for (int s = 0; s < p; s++) {
        const sp_predict_stage_t *st = &res.stages[s];
        assert_int_equal(st->step_ns, res.step_ns);
        assert_int_equal((st->step_ns - st->busy_ns) * (int64_t)(units + p - 1),
                         st->step_ns * (int64_t)(p - 1));
        assert_true(fabs(st->m.bubble_frac - st->m.predicted_frac) < 1e-12);
        assert_true(fabs(st->m.bubble_frac - (double)(p - 1) / (double)(units + p - 1)) < 1e-12);
        /* no TP or DP traffic; a receive's interval is its wait for the sender, as the engine
         * measures it, so PP time is not 0, but it is never longer than the idle time */
        assert_true(isnan(st->m.tp_overlap) && isnan(st->m.dp_overlap));
        assert_true(st->m.pp_exposed_ms <= (double)(st->step_ns - st->busy_ns) / 1e6 + 1e-12);
        /* the non-compute time split: every part >= 0, the parts add up to the step */
        assert_true(st->m.idle_ms >= 0.0 && st->m.pp_excl_ms >= 0.0);
        assert_true(st->m.tp_excl_ms == 0.0 && st->m.dp_excl_ms == 0.0);
        assert_true(fabs(st->m.busy_ms + st->m.idle_ms + st->m.pp_excl_ms - st->m.step_ms) <
                    1e-9);
    }
    sp_predict_result_free(&res);
}

static void test_gpipe_1f1b_bubbles(void **state)
{
    static const int ps[] = {1, 2, 3, 4, 8};
    static const int ms[] = {1, 2, 3, 8, 13};

    (void)state;
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        for (size_t j = 0; j < sizeof(ms) / sizeof(ms[0]); j++) {
            check_fraction(SP_SCHED_GPIPE, ps[i], ms[j], 1, ms[j]);
            check_fraction(SP_SCHED_1F1B, ps[i], ms[j], 1, ms[j]);
        }
    }
}

static void test_interleaved_bubbles(void **state)
{
    static const int ps[] = {2, 3, 4};

    (void)state;
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        for (int k = 1; k <= 3; k++) {
            for (int v = 2; v <= 3; v++) {
                int m = k * ps[i];
                /* per-chunk op times: the chunk is one layer, as in cfg_make */
                check_fraction(SP_SCHED_INTERLEAVED, ps[i], m, v, v * m);
            }
        }
    }
}

/* ZB-H1 (m >= p, t_w <= min(t_f, t_b)): makespan m(t_f + t_b + t_w) + (p-1)(t_f + t_b - t_w),
 * each stage idle (p-1)(t_f + t_b - t_w); t_f = 350, t_b = 400, t_w = 300. */
static void test_zbh1_bubbles(void **state)
{
    static const int ps[] = {2, 3, 4, 8};
    const int64_t tf = 350, tb = 400, tw = 300;

    (void)state;
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        for (int m = ps[i]; m <= 2 * ps[i] + 1; m++) {
            sp_program_config_t cfg = cfg_make(SP_SCHED_ZBH1, ps[i], m, 1);
            sp_predict_result_t res;
            int64_t p = ps[i];
            run(&cfg, zero_cost, NULL, &res);
            assert_int_equal(res.step_ns, m * (tf + tb + tw) + (p - 1) * (tf + tb - tw));
            for (int s = 0; s < ps[i]; s++) {
                assert_int_equal(res.stages[s].step_ns - res.stages[s].busy_ns,
                                 (p - 1) * (tf + tb - tw));
                assert_true(fabs(res.stages[s].m.bubble_frac - res.stages[s].m.predicted_frac) <
                            1e-12);
            }
            sp_predict_result_free(&res);
        }
    }
}

/* ZB-V with free communication. With no attention core F = B = W = 100 + 200 = 300 ns per chunk,
 * and for m >= 2p the step is (6m + p - 1) * 300 ns with every stage idle (p-1) * 300 ns (the
 * replay's closed form, proxies/replay.h). With the core (t_f 350, t_b 400, t_w 300) the
 * simulated bubble still equals the replay's prediction. */
static void test_zbv_bubbles(void **state)
{
    static const int ps[] = {1, 2, 3, 4, 8};
    const int64_t t = 300;

    (void)state;
    for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
        for (int m = 2 * ps[i]; m <= 2 * ps[i] + 3; m++) {
            sp_program_config_t cfg = cfg_make(SP_SCHED_ZBV, ps[i], m, 2);
            sp_predict_result_t res;
            int64_t p = ps[i];
            cfg.flops_core = 0;
            run(&cfg, zero_cost, NULL, &res);
            assert_int_equal(res.step_ns, (6 * m + p - 1) * t);
            for (int s = 0; s < ps[i]; s++) {
                assert_int_equal(res.stages[s].step_ns - res.stages[s].busy_ns, (p - 1) * t);
                assert_true(fabs(res.stages[s].m.bubble_frac - res.stages[s].m.predicted_frac) <
                            1e-12);
                assert_true(fabs(res.stages[s].m.bubble_frac -
                                 (double)(p - 1) / (double)(6 * m + p - 1)) < 1e-12);
            }
            sp_predict_result_free(&res);

            cfg.flops_core = 50;
            run(&cfg, zero_cost, NULL, &res);
            for (int s = 0; s < ps[i]; s++) {
                assert_true(res.stages[s].step_ns - res.stages[s].busy_ns >= (p - 1) * 350);
                assert_true(fabs(res.stages[s].m.bubble_frac - res.stages[s].m.predicted_frac) <
                            1e-12);
            }
            sp_predict_result_free(&res);
        }
    }
}

/* p = 1, tp = 2, one layer, one microbatch, alpha 10 us, beta 100 GB/s, bfloat16, b*s = 8.
 *   forward:  the embedding's all-reduce, attention 100 + 50 = 150 ns, all-reduce, MLP 200 ns,
 *             all-reduce, logits 30 ns, the cross-entropy's 3 fp32 all-reduces of 8 elements
 *   backward: logits dgrad 30 ns, all-reduce, logits wgrad 30 + MLP 2 * 200 = 430 ns,
 *             all-reduce, attention 2 * 150 = 300 ns, all-reduce
 *   compute 150 + 200 + 30 + 30 + 430 + 300 = 1,140 ns
 *   all-reduce of b*s*h = 500,000 elements = 1,000,000 bytes on 2 ranks:
 *             10,000 + 1,000,000 * 2(2-1)/2 / 100 = 10,000 + 10,000 = 20,000 ns; 6 of them
 *   cross-entropy all-reduce of 32 bytes: 10,000 + 32 / 100 = 10,000.32 -> 10,000 ns; 3
 *   step = 1,140 + 6 * 20,000 + 3 * 10,000 = 151,140 ns; busy 1,140; TP exposed 150,000 ns. */
static void test_hand_tp(void **state)
{
    sp_program_config_t cfg = cfg_make(SP_SCHED_1F1B, 1, 1, 1);
    sp_predict_ab_t ab = {.alpha_us = 10.0, .beta_gbps = 100.0};
    sp_predict_result_t res;

    (void)state;
    cfg.tp = 2;
    cfg.flops_logits = 30;
    cfg.tp_elements = 500000;
    run(&cfg, sp_predict_cost_ab, &ab, &res);
    assert_int_equal(res.step_ns, 151140);
    assert_int_equal(res.stages[0].busy_ns, 1140);
    assert_true(fabs(res.stages[0].m.tp_ms - 0.150) < 1e-12);
    assert_true(fabs(res.stages[0].m.tp_exposed_ms - 0.150) < 1e-12);
    assert_true(res.stages[0].m.tp_overlap == 0.0);
    assert_true(isnan(res.stages[0].m.pp_overlap)); /* no pipeline traffic */
    assert_true(fabs(res.stages[0].m.exposed_ms - 0.150) < 1e-12);
    /* every non-compute instant is a TP collective in flight: no idle time */
    assert_true(fabs(res.stages[0].m.tp_excl_ms - 0.150) < 1e-12);
    assert_true(fabs(res.stages[0].m.idle_ms) < 1e-12);
    assert_true(res.stages[0].m.dp_excl_ms == 0.0 && res.stages[0].m.pp_excl_ms == 0.0);
    sp_predict_result_free(&res);
}

/* p = 2, GPipe, one microbatch, tp 1, alpha 5 us, beta 50 GB/s, a 1,000,000-byte message:
 *   message = 5,000 + 1,000,000 * 1 / 50 = 25,000 ns
 *   stage 0 F 350 -> message -> stage 1 F 350 + logits 30, B 2 * 30 + 700 -> message ->
 *   stage 0 B 700
 *   step = 350 + 25,000 + 380 + 760 + 25,000 + 700 = 52,190 ns
 *   stage 0 busy 1,050, stage 1 busy 1,140. Stage 1 posts its receive at 0, so it spans
 *   [0, 25,350]; its forward runs to 25,730, its backward to 26,490, and its send spans
 *   [26,490, 51,490]; stage 0's backward runs [51,490, 52,190]. */
static void test_hand_pipeline(void **state)
{
    sp_program_config_t cfg = cfg_make(SP_SCHED_GPIPE, 2, 1, 1);
    sp_predict_ab_t ab = {.alpha_us = 5.0, .beta_gbps = 50.0};
    sp_predict_result_t res;

    (void)state;
    cfg.flops_logits = 30;
    cfg.p2p_bytes = 1000000;
    run(&cfg, sp_predict_cost_ab, &ab, &res);
    assert_int_equal(res.step_ns, 52190);
    assert_int_equal(res.stages[0].busy_ns, 1050);
    assert_int_equal(res.stages[1].busy_ns, 1140);
    /* stage 1: bubble before its forward (warm-up) 25,350 ns, after its backward 25,700 */
    assert_true(fabs(res.stages[1].m.warmup_ms - 0.02535) < 1e-12);
    assert_true(fabs(res.stages[1].m.cooldown_ms - 0.0257) < 1e-12);
    /* stage 1's receive [0, 25,350] and send [26,490, 51,490]: 50,350 ns on its PP lanes */
    assert_true(fabs(res.stages[1].m.pp_ms - 0.05035) < 1e-12);
    /* the split: stage 1's send is exposed PP communication (25,000 ns), its receive is idle:
     * 52,190 - 1,140 - 25,000 = 26,050 ns; stage 0's send [350, 25,350] likewise, and its
     * receive of the gradient idle: 52,190 - 1,050 - 25,000 = 26,140 ns */
    assert_true(fabs(res.stages[1].m.pp_excl_ms - 0.025) < 1e-12);
    assert_true(fabs(res.stages[1].m.idle_ms - 0.02605) < 1e-12);
    assert_true(fabs(res.stages[0].m.pp_excl_ms - 0.025) < 1e-12);
    assert_true(fabs(res.stages[0].m.idle_ms - 0.02614) < 1e-12);
    sp_predict_result_free(&res);
}

/* test_hand_pipeline's step with a cross-lane wait of 1,000 ns (the stream_wait latency coll
 * --issue stream measures): its critical path crosses lanes 4 times (stage 0's forward -> its
 * send, stage 1's receive -> its forward, stage 1's backward -> its send, stage 0's receive ->
 * its backward), so the step grows by exactly 4 x 1,000 ns; a wait of 0 changes nothing. */
static void test_hand_cross_lane_wait(void **state)
{
    sp_program_config_t cfg = cfg_make(SP_SCHED_GPIPE, 2, 1, 1);
    sp_predict_ab_t ab = {.alpha_us = 5.0, .beta_gbps = 50.0};
    sp_program_t progs[2];
    sp_predict_result_t res;
    int crossings = 0;

    (void)state;
    cfg.flops_logits = 30;
    cfg.p2p_bytes = 1000000;
    for (int s = 0; s < 2; s++) {
        sp_program_config_t c = cfg;
        c.stage = s;
        assert_int_equal(sp_program_build(&c, &progs[s]), SP_OK);
        for (size_t i = 0; i < progs[s].n; i++) {
            const sp_task_t *t = &progs[s].tasks[i];
            for (int d = 0; d < t->ndeps; d++) {
                crossings += progs[s].tasks[t->deps[d]].lane != t->lane;
            }
        }
    }
    /* 5 cross-lane dependencies: the 4 of the critical path, and stage 0's receive of the
     * gradient posted after its forward (at 350 + wait, long before the message comes) */
    assert_int_equal(crossings, 5);
    assert_int_equal(sp_predict_run_wait(progs, 2, 1, 1, sp_predict_cost_ab, &ab, 0, &res),
                     SP_OK);
    assert_int_equal(res.step_ns, 52190);
    sp_predict_result_free(&res);
    assert_int_equal(sp_predict_run_wait(progs, 2, 1, 1, sp_predict_cost_ab, &ab, 1000, &res),
                     SP_OK);
    assert_int_equal(res.step_ns, 52190 + 4 * 1000);
    sp_predict_result_free(&res);
    for (int s = 0; s < 2; s++) {
        sp_program_free(&progs[s]);
    }
}

/* test_hand_pipeline's step with tied embeddings: the word-embedding gradient's all-reduce (512
 * bytes in bf16, 2 ranks: 5,000 + 512 / 50 = 5,010 ns) starts when both ends have reached it:
 * stage 1 after its backward at 26,490, stage 0 after its own at 52,190; so both run it over
 * [52,190, 57,200] and the step is 57,200 ns (stage 1 alone would have ended it at 31,500). */
static void test_hand_tied(void **state)
{
    sp_program_config_t cfg = cfg_make(SP_SCHED_GPIPE, 2, 1, 1);
    sp_predict_ab_t ab = {.alpha_us = 5.0, .beta_gbps = 50.0};
    sp_program_t progs[2];
    sp_predict_result_t res;

    (void)state;
    cfg.flops_logits = 30;
    cfg.p2p_bytes = 1000000;
    cfg.tied_embeddings = 1;
    for (int s = 0; s < 2; s++) {
        sp_program_config_t c = cfg;
        c.stage = s;
        assert_int_equal(sp_program_build(&c, &progs[s]), SP_OK);
        assert_int_equal(progs[s].tasks[progs[s].n - 1].lane, SP_LANE_EMB);
    }
    assert_int_equal(sp_predict_run(progs, 2, 1, 1, sp_predict_cost_ab, &ab, &res), SP_OK);
    assert_int_equal(res.step_ns, 57200);
    for (int s = 0; s < 2; s++) {
        /* reached at 52,190 and 26,490 (stage 1 waits for stage 0, as the engine measures a
         * collective with a late peer); both end together */
        assert_int_equal(res.spans[s][progs[s].n - 1].start_ns, s == 0 ? 52190 : 26490);
        assert_int_equal(res.spans[s][progs[s].n - 1].end_ns, 57200);
        sp_program_free(&progs[s]);
    }
    sp_predict_result_free(&res);
}

/* Only all-reduces cost, one ns per byte: with tp 1 the one all-reduce of an FSDP step is the
 * tied embedding's. */
static double allreduce_ns_per_byte(void *arg, int op, uint64_t bytes, int nranks)
{
    (void)arg;
    (void)nranks;
    return op == SP_COLL_ALL_REDUCE ? (double)bytes : 0.0;
}

/* The tied embedding's all-reduce as predict prices it, with DDP and FSDP at dp 2: the gradient
 * of vocab/tp x h = 512 bytes / 2 = 256 elements in bf16, so DDP: 512 bytes, 512 ns; FSDP
 * (Megatron-FSDP reduces the rank's shard): 128 elements, 256 bytes, 256 ns, from the moment
 * the later end reaches it to the end of both. */
static void test_tied_fsdp_priced(void **state)
{
    for (int fsdp = 0; fsdp < 2; fsdp++) {
        sp_program_config_t cfg = cfg_make(SP_SCHED_GPIPE, 2, 1, 1);
        sp_program_t progs[2];
        sp_predict_result_t res;
        const sp_interval_t *e[2];

        (void)state;
        cfg.tied_embeddings = 1;
        cfg.dp = 2;
        cfg.dp_mode = fsdp ? SP_DP_FSDP : SP_DP_DDP;
        for (int s = 0; s < 2; s++) {
            sp_program_config_t c = cfg;
            c.stage = s;
            assert_int_equal(sp_program_build(&c, &progs[s]), SP_OK);
            assert_int_equal(progs[s].tasks[progs[s].n - 1].lane, SP_LANE_EMB);
            assert_int_equal(progs[s].tasks[progs[s].n - 1].bytes, fsdp ? 256 : 512);
        }
        assert_int_equal(sp_predict_run(progs, 2, 1, 2, allreduce_ns_per_byte, NULL, &res), SP_OK);
        for (int s = 0; s < 2; s++) {
            e[s] = &res.spans[s][progs[s].n - 1];
        }
        assert_int_equal(e[0]->end_ns, e[1]->end_ns);
        assert_int_equal(e[0]->end_ns - (e[0]->start_ns > e[1]->start_ns ? e[0]->start_ns
                                                                          : e[1]->start_ns),
                         fsdp ? 256 : 512);
        for (int s = 0; s < 2; s++) {
            sp_program_free(&progs[s]);
        }
        sp_predict_result_free(&res);
    }
}

/* Only all-gathers cost, one ns per byte. */
static double allgather_ns_per_byte(void *arg, int op, uint64_t bytes, int nranks)
{
    (void)arg;
    (void)nranks;
    return op == SP_COLL_ALL_GATHER ? (double)bytes : 0.0;
}

/* FSDP's gathers of the embedding and the output layer as predict prices them: p 1, m 1, one
 * layer, dp 2, overlap off (every gather on the critical path), all-gathers at 1 ns per byte.
 * Against the same step without vocabulary parameters (logits_param_bytes 0), the step grows by
 * the priced module gathers: untied, the embedding's and the output layer's, 2 x 512 B =
 * 1024 ns; tied on one stage, the one shared weight's, 512 ns (by hand: without them 1024 ns
 * layer gather + 380 forward and logits + 60 logits backward + 1024 gather + 700 backward =
 * 3188 ns; untied 4212, tied 3700). */
static void test_fsdp_ends_priced(void **state)
{
    static const struct {
        int tied;
        uint64_t logits_bytes;
        int64_t step_ns;
    } want[] = {{0, 0, 3188}, {0, 512, 4212}, {1, 0, 3188}, {1, 512, 3700}};

    (void)state;
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        sp_program_config_t cfg = dp2_serial(1);
        sp_predict_result_t res;
        cfg.dp_mode = SP_DP_FSDP;
        cfg.tied_embeddings = want[k].tied;
        cfg.logits_param_bytes = want[k].logits_bytes;
        run(&cfg, allgather_ns_per_byte, NULL, &res);
        assert_int_equal(res.step_ns, want[k].step_ns);
        sp_predict_result_free(&res);
    }
}

/* Only gradient reductions cost (reduce-scatters and all-reduces), one ns per byte. */
static double reduction_ns_per_byte(void *arg, int op, uint64_t bytes, int nranks)
{
    (void)arg;
    (void)nranks;
    return op == SP_COLL_REDUCE_SCATTER || op == SP_COLL_ALL_REDUCE ? (double)bytes : 0.0;
}

/* FSDP reduce-scatters after every microbatch's backward (Megatron-FSDP, optim_grads_params);
 * DDP all-reduces once per step. p 1, one layer, dp 2, untied, overlap off (every reduction on
 * the critical path), bf16 gradients at 1 ns per byte, gathers free. Compute per microbatch:
 * F 350 + 30 logits = 380, B 60 logits + 700 = 760; per microbatch FSDP reduce-scatters the
 * output layer 512 B, the layer 1024 B, the embedding 512 B = 2048 ns.
 *   FSDP m 1: 380 + 760 + 2048 = 3188; m 2: 2 x (380 + 760 + 2048) = 6376 (once per step,
 *   as before, would be 4328).
 *   DDP m 2: 2 x 1140 = 2280 of compute, then one bucket of 2048 B: 4328. */
static void test_fsdp_rs_per_microbatch_priced(void **state)
{
    static const struct {
        int m, fsdp;
        int64_t step_ns;
    } want[] = {{1, 1, 3188}, {2, 1, 6376}, {2, 0, 4328}};

    (void)state;
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        sp_program_config_t cfg = dp2_serial(want[k].m);
        sp_predict_result_t res;
        cfg.dp_mode = want[k].fsdp ? SP_DP_FSDP : SP_DP_DDP;
        run(&cfg, reduction_ns_per_byte, NULL, &res);
        assert_int_equal(res.step_ns, want[k].step_ns);
        sp_predict_result_free(&res);
    }
}

/* Every collective one ns per byte (p 1, tp 1: only the DP lanes have any). */
static double coll_ns_per_byte(void *arg, int op, uint64_t bytes, int nranks)
{
    (void)arg;
    (void)op;
    (void)nranks;
    return (double)bytes;
}

/* The distributed optimizer: p 1, one layer, dp 2, untied, m 1, overlap off, bf16 parameters and
 * gradients at 1 ns per byte. The output layer and the embedding 200 B = 100 elements each, the
 * layer 512: one bucket of 712 elements, padded to lcm(2, 128) = 128: 768. Compute F 350 + 30,
 * B 60 + 700 = 1140 ns. With the flag: the gather of 768 x 2 = 1536 B before the forward, the
 * reduce-scatter of 1536 B after the backward: 1536 + 1140 + 1536 = 4212 ns. DDP without it:
 * 1140 + the all-reduce of 712 x 2 = 1424 B = 2564 ns. */
static void test_dist_opt_priced(void **state)
{
    static const struct {
        int dist;
        int64_t step_ns;
    } want[] = {{1, 4212}, {0, 2564}};

    (void)state;
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        sp_program_config_t cfg = dp2_serial(1);
        sp_predict_result_t res;
        cfg.dist_opt = want[k].dist;
        cfg.logits_param_bytes = 200;
        run(&cfg, coll_ns_per_byte, NULL, &res);
        assert_int_equal(res.step_ns, want[k].step_ns);
        sp_predict_result_free(&res);
    }
}

/* p = 1, tp 1, dp 2, DDP with overlap off, one microbatch, one bucket (1 GiB):
 *   compute: forward 350 + 30, backward 60 + 700 = 1,140 ns
 *   one all-reduce after it of layer 1,024 + output layer 512 + embedding 512 = 2,048 bytes:
 *   2,000 + 2,048 * 2(2-1)/2 / 2.048 = 2,000 + 1,000 = 3,000 ns; step 4,140, DP exposed 3 us.
 *   With overlap on the all-reduce starts when the last gradient is computed: the same here,
 *   since that is the step's last compute. */
static void test_hand_ddp(void **state)
{
    sp_program_config_t cfg = cfg_make(SP_SCHED_1F1B, 1, 1, 1);
    sp_predict_ab_t ab = {.alpha_us = 2.0, .beta_gbps = 2.048};
    sp_predict_result_t res;

    (void)state;
    cfg.dp = 2;
    cfg.overlap = cfg.overlap_param = 0;
    cfg.flops_logits = 30;
    run(&cfg, sp_predict_cost_ab, &ab, &res);
    assert_int_equal(res.step_ns, 4140);
    assert_true(fabs(res.stages[0].m.dp_exposed_ms - 0.003) < 1e-12);
    assert_true(res.stages[0].m.dp_overlap == 0.0);
    assert_true(fabs(res.stages[0].m.dp_excl_ms - 0.003) < 1e-12);
    assert_true(fabs(res.stages[0].m.idle_ms) < 1e-12);
    sp_predict_result_free(&res);
}

static void test_unknown_cost(void **state)
{
    sp_program_config_t cfg = cfg_make(SP_SCHED_1F1B, 2, 2, 1);
    sp_program_t progs[2];
    sp_predict_result_t res;

    (void)state;
    for (int s = 0; s < 2; s++) {
        cfg.stage = s;
        assert_int_equal(sp_program_build(&cfg, &progs[s]), SP_OK);
    }
    assert_int_equal(sp_predict_run(progs, 2, 1, 1, no_cost, NULL, &res), SP_ERR_INVALID);
    assert_int_equal(sp_predict_run(progs, 0, 1, 1, zero_cost, NULL, &res), SP_ERR_INVALID);
    assert_int_equal(sp_predict_run(progs, 2, 1, 1, NULL, NULL, &res), SP_ERR_INVALID);
    /* stage 1 alone: its receive has no send */
    assert_int_equal(sp_predict_run(progs + 1, 1, 1, 1, zero_cost, NULL, &res), SP_ERR_INVALID);
    for (int s = 0; s < 2; s++) {
        sp_program_free(&progs[s]);
    }
    sp_predict_result_free(NULL);
}

/* Curve: 1 KiB 10 us, 4 KiB 12 us, 1 MiB 100 us, 4 MiB 340 us. */
static void test_curve(void **state)
{
    sp_predict_sweep_t sw;
    const sp_predict_curve_t *c;

    (void)state;
    sp_predict_sweep_init(&sw, 4);
    assert_int_equal(sp_predict_sweep_add(&sw, SP_COLL_ALL_REDUCE, 1048576, 100.0), SP_OK);
    assert_int_equal(sp_predict_sweep_add(&sw, SP_COLL_ALL_REDUCE, 1024, 9.0), SP_OK);
    assert_int_equal(sp_predict_sweep_add(&sw, SP_COLL_ALL_REDUCE, 4194304, 340.0), SP_OK);
    assert_int_equal(sp_predict_sweep_add(&sw, SP_COLL_ALL_REDUCE, 4096, 12.0), SP_OK);
    assert_int_equal(sp_predict_sweep_add(&sw, SP_COLL_ALL_REDUCE, 1024, 11.0), SP_OK);
    assert_int_equal(sp_predict_sweep_add(&sw, SP_COLL_ALL_REDUCE, 0, 1.0), SP_ERR_INVALID);
    assert_int_equal(sp_predict_sweep_add(&sw, SP_COLL_ALL_REDUCE, 8, -1.0), SP_ERR_INVALID);
    assert_int_equal(sp_predict_sweep_add(&sw, 42, 8, 1.0), SP_ERR_INVALID);
    sp_predict_sweep_finish(&sw);
    c = &sw.curve[SP_COLL_ALL_REDUCE];
    assert_int_equal(c->n, 4);
    assert_true(fabs(c->time_ns[0] - 10000.0) < 1e-9); /* 9 and 11 us averaged */
    /* measured sizes exactly */
    assert_true(fabs(sp_predict_curve_eval(c, 4096) - 12000.0) < 1e-9);
    /* 2 KiB: on the alpha-beta line through 1 and 4 KiB: 10 + 2 us x 1/3 */
    assert_true(fabs(sp_predict_curve_eval(c, 2048) - (10000.0 + 2000.0 / 3.0)) < 1e-6);
    /* 2 MiB: the bandwidth regime, 80 us per MiB above 1 MiB: 180 us (linear in log size
     * would say 220 us, 22% high) */
    assert_true(fabs(sp_predict_curve_eval(c, 2097152) - 180000.0) < 1e-6);
    /* 8 MiB: the line through the two largest: 340 + 240/3 MiB * 4 MiB = 660 us */
    assert_true(fabs(sp_predict_curve_eval(c, 8388608) - 660000.0) < 1e-6);
    /* 512 B: the line through the two smallest, 10 - 2/3072 * 512 us */
    assert_true(fabs(sp_predict_curve_eval(c, 512) - (10000.0 - 2000.0 / 3072.0 * 512.0)) < 1e-6);
    /* 1 B: never below 0, never above the smallest point */
    assert_true(sp_predict_curve_eval(c, 1) >= 0.0 && sp_predict_curve_eval(c, 1) <= 10000.0);
    /* group-size scaling at equal bus bandwidth: all-reduce 2(n-1)/n, 4 -> 8 ranks: x 7/6 */
    assert_true(fabs(sp_predict_cost_sweep(&sw, SP_COLL_ALL_REDUCE, 4096, 4) - 12000.0) < 1e-9);
    assert_true(fabs(sp_predict_cost_sweep(&sw, SP_COLL_ALL_REDUCE, 4096, 8) -
                     12000.0 * (14.0 / 8.0) / (6.0 / 4.0)) < 1e-6);
    /* no curve */
    assert_false(sp_predict_sweep_has(&sw, SP_PREDICT_OP_P2P));
    assert_true(isnan(sp_predict_cost_sweep(&sw, SP_PREDICT_OP_P2P, 64, 2)));
    assert_true(isnan(sp_predict_cost_sweep(&sw, SP_COLL_ALL_GATHER, 64, 4)));
    /* messages take the sendrecv curve, unscaled */
    assert_int_equal(sp_predict_sweep_add(&sw, SP_COLL_SENDRECV, 1024, 3.0), SP_OK);
    sp_predict_sweep_finish(&sw);
    assert_true(sp_predict_sweep_has(&sw, SP_PREDICT_OP_P2P));
    assert_true(fabs(sp_predict_cost_sweep(&sw, SP_PREDICT_OP_P2P, 1024, 2) - 3000.0) < 1e-9);
    assert_true(fabs(sp_predict_cost_sweep(&sw, SP_PREDICT_OP_P2P, 2048, 2) - 6000.0) < 1e-9);
    sp_predict_sweep_cleanup(&sw);
    /* a one-rank sweep cannot be scaled */
    sp_predict_sweep_init(&sw, 1);
    assert_int_equal(sp_predict_sweep_add(&sw, SP_COLL_ALL_REDUCE, 1024, 3.0), SP_OK);
    sp_predict_sweep_finish(&sw);
    assert_true(isnan(sp_predict_cost_sweep(&sw, SP_COLL_ALL_REDUCE, 1024, 2)));
    sp_predict_sweep_cleanup(&sw);
}

/* A sweep from a loaded host, not monotone in size (as recorded: a 256 KiB sendrecv at 31 ms
 * beside 0.13 ms at 1 MiB): 16 KiB 7 us, 64 KiB 10 us, 256 KiB 31,000 us, 1 MiB 128 us, 4 MiB
 * 33,000 us. finish makes each size's time the least at it or above: 256 KiB takes 1 MiB's
 * 128 us; the others keep theirs; 128 KiB then lies on the line from 10 to 128 us. */
static void test_curve_envelope(void **state)
{
    static const struct {
        uint64_t bytes;
        double us, want_us;
    } pt[] = {{16384, 7.0, 7.0},
              {65536, 10.0, 10.0},
              {262144, 31000.0, 128.0},
              {1048576, 128.0, 128.0},
              {4194304, 33000.0, 33000.0}};
    sp_predict_sweep_t sw;
    const sp_predict_curve_t *c;

    (void)state;
    sp_predict_sweep_init(&sw, 2);
    for (size_t i = 0; i < sizeof(pt) / sizeof(pt[0]); i++) {
        assert_int_equal(sp_predict_sweep_add(&sw, SP_COLL_SENDRECV, pt[i].bytes, pt[i].us), SP_OK);
    }
    sp_predict_sweep_finish(&sw);
    c = &sw.curve[SP_COLL_SENDRECV];
    assert_int_equal(c->n, 5);
    for (size_t i = 0; i < sizeof(pt) / sizeof(pt[0]); i++) {
        assert_true(fabs(sp_predict_curve_eval(c, pt[i].bytes) - pt[i].want_us * 1e3) < 1e-9);
    }
    assert_true(fabs(sp_predict_curve_eval(c, 131072) - (10.0 + 118.0 / 3.0) * 1e3) < 1e-6);
    sp_predict_sweep_cleanup(&sw);
}

/* Sweeps of several communicator sizes: a group takes its own size's sweep, else the nearest in
 * log size (a tie to the larger), scaled by the bus factor; coverage counts what lies beyond the
 * measured sizes and what was scaled. */
static void test_sweeps(void **state)
{
    sp_predict_sweeps_t s;
    sp_predict_sweep_t *two, *eight;
    sp_predict_coverage_t cv;
    sp_task_t tasks[4];
    sp_program_t prog;

    (void)state;
    memset(&s, 0, sizeof(s));
    two = sp_predict_sweeps_at(&s, 2);
    eight = sp_predict_sweeps_at(&s, 8);
    assert_non_null(two);
    assert_non_null(eight);
    assert_ptr_equal(sp_predict_sweeps_at(&s, 2), two);
    assert_int_equal(s.n, 2);
    assert_int_equal(sp_predict_sweep_add(two, SP_COLL_ALL_REDUCE, 1024, 5.0), SP_OK);
    assert_int_equal(sp_predict_sweep_add(two, SP_COLL_ALL_REDUCE, 1048576, 50.0), SP_OK);
    assert_int_equal(sp_predict_sweep_add(eight, SP_COLL_ALL_REDUCE, 1024, 20.0), SP_OK);
    assert_int_equal(sp_predict_sweep_add(eight, SP_COLL_ALL_REDUCE, 1048576, 200.0), SP_OK);
    assert_int_equal(sp_predict_sweep_add(eight, SP_COLL_SENDRECV, 1024, 3.0), SP_OK);
    sp_predict_sweep_finish(two);
    sp_predict_sweep_finish(eight);
    assert_ptr_equal(sp_predict_sweeps_pick(&s, SP_COLL_ALL_REDUCE, 2), two);
    assert_ptr_equal(sp_predict_sweeps_pick(&s, SP_COLL_ALL_REDUCE, 3), two);
    assert_ptr_equal(sp_predict_sweeps_pick(&s, SP_COLL_ALL_REDUCE, 4), eight); /* tie */
    assert_ptr_equal(sp_predict_sweeps_pick(&s, SP_COLL_ALL_REDUCE, 64), eight);
    assert_ptr_equal(sp_predict_sweeps_pick(&s, SP_PREDICT_OP_P2P, 2), eight);
    assert_null(sp_predict_sweeps_pick(&s, SP_COLL_ALL_GATHER, 2));
    assert_true(isnan(sp_predict_cost_sweeps(&s, SP_COLL_ALL_GATHER, 1024, 2)));
    assert_true(fabs(sp_predict_cost_sweeps(&s, SP_COLL_ALL_REDUCE, 1024, 2) - 5000.0) < 1e-9);
    /* 4 ranks from the 8-rank sweep: x (2*3/4) / (2*7/8) */
    assert_true(fabs(sp_predict_cost_sweeps(&s, SP_COLL_ALL_REDUCE, 1024, 4) -
                     20000.0 * 1.5 / 1.75) < 1e-6);
    assert_true(sp_predict_cost_free(NULL, SP_COLL_ALL_REDUCE, 1 << 30, 1024) == 0.0);

    /* a program of a TP all-reduce inside the sizes (tp 2: the 2-rank sweep), a DP all-reduce
     * of 4 MiB (dp 4: scaled from 8, and beyond the largest size), a message, a compute */
    memset(tasks, 0, sizeof(tasks));
    tasks[0] = (sp_task_t){.kind = SP_TASK_COLL, .lane = SP_LANE_TP, .coll = SP_COLL_ALL_REDUCE,
                           .bytes = 4096};
    tasks[1] = (sp_task_t){.kind = SP_TASK_COLL, .lane = SP_LANE_DP, .coll = SP_COLL_ALL_REDUCE,
                           .bytes = 4194304};
    tasks[2] = (sp_task_t){.kind = SP_TASK_SEND, .lane = SP_LANE_PP_FWD0, .coll = -1,
                           .bytes = 1024};
    tasks[3] = (sp_task_t){.kind = SP_TASK_COMPUTE, .lane = SP_LANE_COMPUTE, .coll = -1,
                           .dur_ns = 1000};
    memset(&prog, 0, sizeof(prog));
    prog.tasks = tasks;
    prog.n = 4;
    sp_predict_coverage(&prog, 1, 2, 4, &s, &cv);
    assert_int_equal(cv.calls, 3);
    assert_int_equal(cv.beyond, 1);
    assert_int_equal(cv.scaled, 1);
    assert_int_equal(cv.scaled_from[0], 8);
    assert_int_equal(cv.scaled_to[0], 4);
    assert_int_equal(cv.scaled_from[1], 0);
    assert_true(cv.min_bytes == 1024 && cv.max_bytes == 4194304);
    assert_true(cv.beyond_ns > 0.0 && cv.beyond_ns == cv.scaled_ns && cv.time_ns > cv.beyond_ns);
    sp_predict_sweeps_cleanup(&s);
    assert_int_equal(s.n, 0);
}

static void test_alpha_beta_factors(void **state)
{
    sp_predict_ab_t ab = {.alpha_us = 1.0, .beta_gbps = 10.0};

    (void)state;
    /* 1,000 + 8,000 * factor / 10 */
    assert_true(fabs(sp_predict_cost_ab(&ab, SP_COLL_ALL_REDUCE, 8000, 8) - (1000.0 + 1400.0)) <
                1e-9);
    assert_true(fabs(sp_predict_cost_ab(&ab, SP_COLL_ALL_GATHER, 8000, 8) - (1000.0 + 700.0)) <
                1e-9);
    assert_true(fabs(sp_predict_cost_ab(&ab, SP_COLL_REDUCE_SCATTER, 8000, 4) - (1000.0 + 600.0)) <
                1e-9);
    assert_true(fabs(sp_predict_cost_ab(&ab, SP_PREDICT_OP_P2P, 8000, 2) - (1000.0 + 800.0)) <
                1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpipe_1f1b_bubbles), cmocka_unit_test(test_interleaved_bubbles),
        cmocka_unit_test(test_zbh1_bubbles),       cmocka_unit_test(test_zbv_bubbles),
        cmocka_unit_test(test_hand_tp),            cmocka_unit_test(test_hand_pipeline),
        cmocka_unit_test(test_hand_ddp),           cmocka_unit_test(test_unknown_cost),
        cmocka_unit_test(test_hand_cross_lane_wait),
        cmocka_unit_test(test_curve),              cmocka_unit_test(test_alpha_beta_factors),
        cmocka_unit_test(test_sweeps),             cmocka_unit_test(test_hand_tied),
        cmocka_unit_test(test_tied_fsdp_priced),
        cmocka_unit_test(test_fsdp_ends_priced),
        cmocka_unit_test(test_fsdp_rs_per_microbatch_priced),
        cmocka_unit_test(test_dist_opt_priced),
        cmocka_unit_test(test_curve_envelope),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
