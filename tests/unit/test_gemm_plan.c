/* Unit tests of proxies/gemm_plan.h: the GEMM shapes of one layer and of the output layer per
 * part and tp, their FLOPs against hand counts and against the cost model, and every compute
 * task of a program (the parts it holds) against its FLOPs. Expected values are literals worked
 * out by hand in the comments. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "gemm_plan.h"
#include "model.h"
#include "program.h"
#include "proxy_options.h"

static sp_model_t tiny(void)
{
    sp_model_t m;

    assert_int_equal(sp_model_preset("tiny", &m), SP_OK);
    return m;
}

static void assert_gemm(const sp_gemm_t *g, int64_t batch, int64_t m, int64_t n, int64_t k)
{
    if (g->batch != batch || g->m != m || g->n != n || g->k != k || g->count != 1) {
        print_error("expected batch %lld [%lld x %lld x %lld], got batch %lld [%lld x %lld x "
                    "%lld] count %lld\n", (long long)batch, (long long)m, (long long)n,
                    (long long)k, (long long)g->batch, (long long)g->m, (long long)g->n,
                    (long long)g->k, (long long)g->count);
        fail();
    }
}

/* tiny (h 256, 16 heads, 8 key/value heads, ffn 1024 gated, s 128, b 1, V 4096) on tp 2:
 * T = 128 tokens, d = 16, hkv = 128, QKV width (256 + 2*128)/2 = 256, 8 heads per rank,
 * ffn 512 and V 2048 per rank. */
static void test_tiny_tp2_shapes(void **state)
{
    sp_model_t m = tiny();
    sp_gemm_plan_t p;

    (void)state;
    assert_int_equal(sp_gemm_plan_build(&m, 2, &p), SP_OK);
    assert_int_equal(p.n[SP_PART_ATTN_FWD], 4);   /* QKV, scores, context, projection */
    assert_int_equal(p.n[SP_PART_ATTN_DGRAD], 6); /* QKV, dP, dV, dQ, dK, projection */
    assert_int_equal(p.n[SP_PART_ATTN_WGRAD], 2);
    assert_int_equal(p.n[SP_PART_MLP_FWD], 2);
    assert_int_equal(p.n[SP_PART_LOGITS_WGRAD], 1);
    /* forward [T x in][in x out] */
    assert_gemm(&p.gemm[SP_PART_ATTN_FWD][0], 1, 128, 256, 256);  /* QKV */
    assert_gemm(&p.gemm[SP_PART_ATTN_FWD][1], 8, 128, 128, 16);   /* scores QK^T */
    assert_gemm(&p.gemm[SP_PART_ATTN_FWD][2], 8, 128, 16, 128);   /* context PV */
    assert_gemm(&p.gemm[SP_PART_ATTN_FWD][3], 1, 128, 256, 128);  /* projection, in h/tp */
    /* input gradient [T x out][out x in], weight gradient [in x T][T x out] */
    assert_gemm(&p.gemm[SP_PART_ATTN_DGRAD][0], 1, 128, 256, 256);
    assert_gemm(&p.gemm[SP_PART_ATTN_WGRAD][1], 1, 128, 256, 128); /* projection: in 128 */
    assert_gemm(&p.gemm[SP_PART_MLP_FWD][0], 1, 128, 1024, 256);   /* gate + up: 2 x 512 */
    assert_gemm(&p.gemm[SP_PART_MLP_FWD][1], 1, 128, 256, 512);    /* down */
    assert_gemm(&p.gemm[SP_PART_MLP_WGRAD][1], 1, 512, 256, 128);
    assert_gemm(&p.gemm[SP_PART_LOGITS_FWD][0], 1, 128, 2048, 256);
    assert_gemm(&p.gemm[SP_PART_LOGITS_DGRAD][0], 1, 128, 256, 2048);
}

/* The same layout's FLOPs by hand:
 *   QKV 2*128*256*256 = 16777216, scores and context 2*8*128*128*16 = 4194304 each,
 *   projection 2*128*256*128 = 8388608: attn_fwd 33554432 (= proj 25165824 + core 8388608);
 *   attn_dgrad = proj + 2 core = 41943040 (the core's four backward GEMMs 16777216);
 *   attn_wgrad = proj = 25165824;
 *   MLP: up 2*128*1024*256 = 67108864 + down 2*128*256*512 = 33554432 = 100663296 each pass;
 *   logits 2*128*2048*256 = 134217728 each pass. */
static void test_tiny_tp2_flops(void **state)
{
    static const double hand[SP_PART_COUNT] = {
        33554432.0, 41943040.0, 25165824.0, 100663296.0, 100663296.0,
        100663296.0, 134217728.0, 134217728.0, 134217728.0,
    };
    sp_model_t m = tiny();
    sp_model_flops_t f;
    sp_gemm_plan_t p;
    double layer = 0.0;

    (void)state;
    assert_int_equal(sp_gemm_plan_build(&m, 2, &p), SP_OK);
    assert_int_equal(sp_model_flops(&m, 2, &f), SP_OK);
    for (int i = 0; i < SP_PART_COUNT; i++) {
        if (sp_gemm_plan_part_flops(&p, (sp_part_t)i) != hand[i]) {
            print_error("%s: expected %.17g, got %.17g\n", sp_part_names[i], hand[i],
                        sp_gemm_plan_part_flops(&p, (sp_part_t)i));
            fail();
        }
        layer += i < SP_PART_LOGITS_FWD ? hand[i] : 0.0;
    }
    /* forward + backward of a layer = 3 forwards in the cost model */
    assert_true(layer == f.layer_fwd + f.layer_bwd);
    assert_true(hand[SP_PART_LOGITS_FWD] == f.logits_fwd);
}

/* The causal convention halves the s^2 side: scores [128 x 64], context inner 64, so the core
 * is 2*8*128*64*16 * 2 = 4194304 = attn_core_fwd with causal (2bs^2h/tp). */
static void test_causal(void **state)
{
    sp_model_t m = tiny();
    sp_model_flops_t f;
    sp_gemm_plan_t p;

    (void)state;
    m.causal = 1;
    assert_int_equal(sp_gemm_plan_build(&m, 2, &p), SP_OK);
    assert_int_equal(sp_model_flops(&m, 2, &f), SP_OK);
    assert_gemm(&p.gemm[SP_PART_ATTN_FWD][1], 8, 128, 64, 16);
    assert_gemm(&p.gemm[SP_PART_ATTN_FWD][2], 8, 128, 16, 64);
    assert_true(sp_gemm_plan_part_flops(&p, SP_PART_ATTN_FWD) ==
                f.attn_proj_fwd + f.attn_core_fwd);
    assert_true(sp_gemm_plan_part_flops(&p, SP_PART_ATTN_DGRAD) ==
                f.attn_proj_fwd + 2.0 * f.attn_core_fwd);
    assert_int_equal(sp_gemm_plan_build(&m, 0, &p), SP_ERR_INVALID);
}

/* Every compute task of every stage: the FLOPs of the parts it holds = its FLOPs. */
static void check_layout(const char *const *args, int nargs, int world)
{
    const char *argv[24] = {"proxy", "--backend", "host"};
    sp_proxy_opts_t o;
    sp_layout_t layout;
    sp_program_config_t cfg;
    sp_model_t m;
    sp_gemm_plan_t p;
    char err[256];
    int help = 0;
    size_t tasks = 0;

    for (int i = 0; i < nargs; i++) {
        argv[3 + i] = args[i];
    }
    if (sp_proxy_opts_parse(3 + nargs, (char **)argv, 1, &o, &help, err, sizeof(err)) != SP_OK) {
        print_error("options: %s\n", err);
        fail();
    }
    assert_int_equal(sp_proxy_layout(&o, world, &layout, err, sizeof(err)), SP_OK);
    assert_int_equal(sp_proxy_program_config(&o, &layout, &cfg), SP_OK);
    assert_int_equal(sp_proxy_model(&o, &m), SP_OK);
    assert_int_equal(sp_gemm_plan_build(&m, layout.tp, &p), SP_OK);
    for (int s = 0; s < cfg.p; s++) {
        sp_program_t prog;
        cfg.stage = s;
        assert_int_equal(sp_program_build(&cfg, &prog), SP_OK);
        for (size_t i = 0; i < prog.n; i++) {
            const sp_task_t *t = &prog.tasks[i];
            double f = 0.0;
            for (int k = 0; k < SP_PART_COUNT; k++) {
                f += (double)t->parts[k] * sp_gemm_plan_part_flops(&p, (sp_part_t)k);
            }
            if (t->kind != SP_TASK_COMPUTE) {
                assert_true(f == 0.0);
                continue;
            }
            tasks++;
            if (fabs(f - t->flops) > 1e-9 * t->flops || !(f > 0.0)) {
                print_error("stage %d task %zu: parts give %.17g FLOPs, the task %.17g\n", s, i,
                            f, t->flops);
                fail();
            }
        }
        sp_program_free(&prog);
    }
    assert_true(tasks > 0);
}

static void test_programs(void **state)
{
    static const char *const tp_sp_zb[] = {"--tp", "2", "--pp", "2", "--sequence-parallel",
                                           "--schedule", "zb-h1", "--microbatches", "4"};
    static const char *const dp_fsdp[] = {"--dp", "2", "--pp", "2", "--dp-mode", "fsdp"};
    static const char *const inter[] = {"--tp", "2", "--pp", "2", "--schedule", "interleaved",
                                        "--chunks", "2", "--causal"};

    (void)state;
    check_layout(tp_sp_zb, 9, 4);
    check_layout(dp_fsdp, 6, 4);
    check_layout(inter, 9, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny_tp2_shapes),
        cmocka_unit_test(test_tiny_tp2_flops),
        cmocka_unit_test(test_causal),
        cmocka_unit_test(test_programs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
