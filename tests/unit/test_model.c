/* Unit tests of proxies/model.h: presets, per-layer FLOPs (Megatron's 24bsh^2 + 4bs^2h and the
 * generalised terms), tensor-parallel division, the causal option, sizes and the step count.
 * Every expected value is a literal worked out by hand in the comment above it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "model.h"

/* Doubles compared exactly: every value here is an integer below 2^53. */
static void assert_flops(double actual, double expected)
{
    if (!(actual == expected)) {
        print_error("expected %.17g, got %.17g\n", expected, actual);
        fail();
    }
}

static sp_model_t preset(const char *name)
{
    sp_model_t m;

    memset(&m, 0, sizeof(m));
    assert_int_equal(sp_model_preset(name, &m), SP_OK);
    assert_int_equal(sp_model_check(&m, NULL, 0), SP_OK);
    return m;
}

/* ---- presets ---- */

static void test_presets(void **state)
{
    sp_model_t m;

    (void)state;
    assert_int_equal(sp_model_preset_count(), 5);
    assert_string_equal(sp_model_preset_name(0), "gpt3-175b");
    assert_string_equal(sp_model_preset_name(3), "llama3-405b");
    assert_string_equal(sp_model_preset_name(4), "tiny");
    assert_null(sp_model_preset_name(5));
    assert_null(sp_model_preset_name(-1));

    m = preset("gpt3-175b");
    assert_string_equal(m.name, "gpt3-175b");
    assert_int_equal(m.hidden, 12288);
    assert_int_equal(m.layers, 96);
    assert_int_equal(m.heads, 96);
    assert_int_equal(m.ffn, 4 * 12288);
    assert_int_equal(m.seq, 2048);
    assert_int_equal(m.vocab, 50257);
    assert_int_equal(m.micro_batch, 1);
    assert_int_equal(m.dtype, SP_DTYPE_BFLOAT16);
    assert_int_equal(m.causal, 0);
    assert_int_equal(m.gated_mlp, 0);

    m = preset("llama3-8b");
    assert_int_equal(m.hidden, 4096);
    assert_int_equal(m.layers, 32);
    assert_int_equal(m.heads, 32);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.ffn, 14336);
    assert_int_equal(m.seq, 8192);
    assert_int_equal(m.vocab, 128256);
    assert_int_equal(m.gated_mlp, 1);

    m = preset("llama3-70b");
    assert_int_equal(m.hidden, 8192);
    assert_int_equal(m.layers, 80);
    assert_int_equal(m.heads, 64);
    assert_int_equal(m.ffn, 28672);

    m = preset("llama3-405b");
    assert_int_equal(m.hidden, 16384);
    assert_int_equal(m.layers, 126);
    assert_int_equal(m.heads, 128);
    assert_int_equal(m.ffn, 53248);
    assert_int_equal(m.vocab, 128256);
}

static void test_preset_unknown_and_override(void **state)
{
    sp_model_t m;

    (void)state;
    memset(&m, 0x5a, sizeof(m));
    assert_int_equal(sp_model_preset("gpt4", &m), SP_ERR_INVALID);
    assert_int_equal(m.hidden, 0x5a5a5a5a5a5a5a5aL); /* untouched on failure */
    assert_int_equal(sp_model_preset(NULL, &m), SP_ERR_INVALID);
    assert_int_equal(sp_model_preset("llama3-8b", NULL), SP_ERR_INVALID);

    /* fields are plain data: override after the preset */
    m = preset("llama3-8b");
    m.seq = 4096;
    m.micro_batch = 2;
    assert_int_equal(sp_model_check(&m, NULL, 0), SP_OK);
    /* activation b*s*h*2 = 2 * 4096 * 4096 * 2 = 67108864 */
    assert_int_equal(sp_model_activation_bytes(&m), 67108864);
}

static void test_check(void **state)
{
    char err[160];
    sp_model_t m;

    (void)state;
    m = preset("gpt3-175b");
    m.layers = 0;
    assert_int_equal(sp_model_check(&m, err, sizeof(err)), SP_ERR_INVALID);
    assert_string_equal(err, "model layers must be >= 1 (got 0)");

    m = preset("gpt3-175b");
    m.heads = 100; /* 12288 % 100 = 88 */
    assert_int_equal(sp_model_check(&m, err, sizeof(err)), SP_ERR_INVALID);
    assert_string_equal(err, "model hidden 12288 is not a multiple of heads 100");

    m = preset("llama3-8b");
    m.kv_heads = 5; /* 32 % 5 = 2 */
    assert_int_equal(sp_model_check(&m, err, sizeof(err)), SP_ERR_INVALID);
    assert_string_equal(err, "model heads 32 is not a multiple of kv_heads 5");

    m = preset("llama3-8b");
    m.causal = 2;
    assert_int_equal(sp_model_check(&m, err, sizeof(err)), SP_ERR_INVALID);

    m = preset("llama3-8b");
    m.dtype = SP_DTYPE_COUNT;
    assert_int_equal(sp_model_check(&m, err, sizeof(err)), SP_ERR_INVALID);
    assert_int_equal(sp_model_check(NULL, err, sizeof(err)), SP_ERR_INVALID);

    /* kv_heads 0 means multi-head and is valid */
    m = preset("llama3-8b");
    m.kv_heads = 0;
    assert_int_equal(sp_model_check(&m, NULL, 0), SP_OK);
}

/* ---- FLOPs ---- */

/* GPT-3 175B, b = 1, s = 2048, h = 12288 (h^2 = 150994944), one layer forward:
 *   attention projections 8bsh^2 = 8 * 2048 * 150994944        = 2473901162496
 *   attention scores      4bs^2h = 4 * 4194304 * 12288         =  206158430208
 *   MLP (ffn = 4h)        4bsh*ffn = 16bsh^2                    = 4947802324992
 *   layer                 24bsh^2 + 4bs^2h = 7421703487488 + 206158430208
 *                                                               = 7627861917696
 *   logits 6bshV = 6 * 2048 * 12288 * 50257 = 7588552900608; forward 2bshV = 2529517633536 */
static void test_gpt3_layer_flops(void **state)
{
    sp_model_t m = preset("gpt3-175b");
    sp_model_flops_t f;

    (void)state;
    assert_int_equal(sp_model_flops(&m, 1, &f), SP_OK);
    assert_flops(f.attn_proj_fwd, 2473901162496.0);
    assert_flops(f.attn_core_fwd, 206158430208.0);
    assert_flops(f.mlp_fwd, 4947802324992.0);
    assert_flops(f.layer_fwd, 7627861917696.0);
    assert_flops(f.layer_bwd, 2.0 * 7627861917696.0);
    assert_flops(f.logits, 7588552900608.0);
    assert_flops(f.logits_fwd, 2529517633536.0);
    assert_flops(sp_model_layer_fwd_flops(&m), 7627861917696.0);

    /* Megatron's closed form, written independently: 24bsh^2 + 4bs^2h */
    {
        double b = 1, s = 2048, h = 12288;
        assert_flops(f.layer_fwd, 24 * b * s * h * h + 4 * b * s * s * h);
    }
}

/* Tensor parallelism divides every term: tp 8 -> 7627861917696 / 8 = 953482739712,
 * logits 7588552900608 / 8 = 948569112576. */
static void test_tp_division(void **state)
{
    sp_model_t m = preset("gpt3-175b");
    sp_model_flops_t f;

    (void)state;
    assert_int_equal(sp_model_flops(&m, 8, &f), SP_OK);
    assert_flops(f.layer_fwd, 953482739712.0);
    assert_flops(f.layer_bwd, 1906965479424.0);
    assert_flops(f.logits, 948569112576.0);
    assert_int_equal(sp_model_flops(&m, 0, &f), SP_ERR_INVALID);
    assert_int_equal(sp_model_flops(NULL, 1, &f), SP_ERR_INVALID);
}

/* causal = 1 halves only the s^2 term: 206158430208 / 2 = 103079215104, so the layer is
 * 7627861917696 - 103079215104 = 7524782702592. */
static void test_causal(void **state)
{
    sp_model_t m = preset("gpt3-175b");
    sp_model_flops_t f;

    (void)state;
    m.causal = 1;
    assert_int_equal(sp_model_flops(&m, 1, &f), SP_OK);
    assert_flops(f.attn_core_fwd, 103079215104.0);
    assert_flops(f.attn_proj_fwd, 2473901162496.0);
    assert_flops(f.mlp_fwd, 4947802324992.0);
    assert_flops(f.layer_fwd, 7524782702592.0);
}

/* With ffn != 4h the MLP term is 4bsh*ffn: GPT-3 shape with ffn = 2h = 24576 gives
 * 4 * 2048 * 12288 * 24576 = 2473901162496 (half of the ffn = 4h term). */
static void test_ffn_generalised(void **state)
{
    sp_model_t m = preset("gpt3-175b");
    sp_model_flops_t f;

    (void)state;
    m.ffn = 2 * 12288;
    assert_int_equal(sp_model_flops(&m, 1, &f), SP_OK);
    assert_flops(f.mlp_fwd, 2473901162496.0);
    assert_flops(f.layer_fwd, 2473901162496.0 + 206158430208.0 + 2473901162496.0);
}

/* Llama-3 8B, b = 1, s = 8192, h = 4096, 8 of 32 heads for K/V -> hkv = 1024, gated MLP:
 *   projections 4bsh(h + hkv) = 4 * 8192 * 4096 * 5120      =  687194767360
 *   scores      4bs^2h = 4 * 67108864 * 4096                = 1099511627776
 *   MLP         6bsh*ffn = 6 * 8192 * 4096 * 14336          = 2886218022912
 *   layer                                                   = 4672924418048
 *   logits 6bshV = 6 * 8192 * 4096 * 128256                 = 25821343383552
 * Parameters per layer 2h^2 + 2h*hkv + 3h*ffn = 33554432 + 8388608 + 176160768 = 218103808;
 * bfloat16 bytes 436207616, per rank at tp 4: 109051904. N = 32 * 218103808 + 128256 * 4096
 * = 6979321856 + 525336576 = 7504658432. Activation 8192 * 4096 * 2 = 67108864 bytes. */
static void test_llama3_8b(void **state)
{
    sp_model_t m = preset("llama3-8b");
    sp_model_flops_t f;

    (void)state;
    assert_int_equal(sp_model_flops(&m, 1, &f), SP_OK);
    assert_flops(f.attn_proj_fwd, 687194767360.0);
    assert_flops(f.attn_core_fwd, 1099511627776.0);
    assert_flops(f.mlp_fwd, 2886218022912.0);
    assert_flops(f.layer_fwd, 4672924418048.0);
    assert_flops(f.logits, 25821343383552.0);
    assert_int_equal(sp_model_layer_params(&m), 218103808);
    assert_int_equal(sp_model_layer_param_bytes(&m, 1), 436207616);
    assert_int_equal(sp_model_layer_param_bytes(&m, 4), 109051904);
    assert_int_equal(sp_model_params(&m), 7504658432ULL);
    assert_int_equal(sp_model_activation_bytes(&m), 67108864);
    assert_int_equal(sp_model_p2p_bytes(&m, 4, 0), 67108864);
    assert_int_equal(sp_model_p2p_bytes(&m, 4, 1), 16777216);
}

/* GPT-3: 4h^2 + 2h*ffn = 12h^2 = 12 * 150994944 = 1811939328 parameters per layer (bfloat16:
 * 3623878656 bytes); N = 96 * 1811939328 + 50257 * 12288 = 173946175488 + 617558016
 * = 174563733504 (the 175B of the name less the input embedding). */
static void test_gpt3_params(void **state)
{
    sp_model_t m = preset("gpt3-175b");

    (void)state;
    assert_int_equal(sp_model_layer_params(&m), 1811939328);
    assert_int_equal(sp_model_layer_param_bytes(&m, 1), 3623878656ULL);
    assert_int_equal(sp_model_layer_param_bytes(&m, 8), 452984832);
    assert_int_equal(sp_model_params(&m), 174563733504ULL);
    /* kv_heads 0 counts as multi-head: same numbers */
    m.kv_heads = 0;
    assert_int_equal(sp_model_layer_params(&m), 1811939328);
}

/* The parameters Megatron marks sequence-parallel: GPT-3 (LayerNorm with bias, linear biases):
 * 2 x 2h + 2h = 6 x 12288 = 73728 per layer, the final LayerNorm 2h = 24576; Llama-3 8B
 * (RMSNorm, no biases): 2h = 8192 per layer, the final norm h = 4096. */
static void test_sp_params(void **state)
{
    sp_model_t gpt = preset("gpt3-175b"), llama = preset("llama3-8b");
    uint64_t layer = 0, final = 0;

    (void)state;
    sp_model_sp_params(&gpt, &layer, &final);
    assert_int_equal(layer, 73728);
    assert_int_equal(final, 24576);
    sp_model_sp_params(&llama, &layer, &final);
    assert_int_equal(layer, 8192);
    assert_int_equal(final, 4096);
}

/* ---- TP communication ---- */

/* GPT-3, b = 1: b*s*h = 2048 * 12288 = 25165824 elements, 50331648 bytes in bfloat16. */
static void test_tp_comm(void **state)
{
    sp_model_t m = preset("gpt3-175b");
    sp_model_tp_comm_t c;

    (void)state;
    assert_int_equal(sp_model_tp_comm(&m, 8, 0, &c), SP_OK);
    assert_int_equal(c.allreduce_fwd, 2);
    assert_int_equal(c.allreduce_bwd, 2);
    assert_int_equal(c.allgather_fwd + c.allgather_bwd, 0);
    assert_int_equal(c.reducescatter_fwd + c.reducescatter_bwd, 0);
    assert_int_equal(c.elements, 25165824);
    assert_int_equal(c.bytes, 50331648);

    assert_int_equal(sp_model_tp_comm(&m, 8, 1, &c), SP_OK);
    assert_int_equal(c.allreduce_fwd + c.allreduce_bwd, 0);
    assert_int_equal(c.allgather_fwd, 2);
    assert_int_equal(c.reducescatter_fwd, 2);
    assert_int_equal(c.allgather_bwd, 2);
    assert_int_equal(c.reducescatter_bwd, 2);
    assert_int_equal(c.elements, 25165824);

    /* no tensor parallelism, no collectives */
    assert_int_equal(sp_model_tp_comm(&m, 1, 0, &c), SP_OK);
    assert_int_equal(c.allreduce_fwd + c.allreduce_bwd, 0);
    assert_int_equal(sp_model_tp_comm(&m, 0, 0, &c), SP_ERR_INVALID);
}

/* ---- per step ---- */

/* Llama-3 8B, 8 microbatches, dp 2: 16 microbatches of 8192 tokens = 131072 tokens.
 *   per microbatch 32 * 3 * 4672924418048 + 25821343383552
 *                = 448600744132608 + 25821343383552 = 474422087516160
 *   step 16 * 474422087516160 = 7590753400258560
 * and the same as 6 * N * tokens + layers * 3 * attn_core * 16
 *   = 6 * 7504658432 * 131072 + 32 * 3 * 1099511627776 * 16
 *   = 5901903539994624 + 1688849860263936 = 7590753400258560 (below 2^53, exact). */
static void test_flops_per_step(void **state)
{
    sp_model_t m = preset("llama3-8b");

    (void)state;
    assert_flops(sp_model_tokens_per_step(&m, 8, 2), 131072.0);
    assert_flops(sp_model_flops_per_step(&m, 8, 2), 7590753400258560.0);
    assert_flops(sp_model_flops_per_step(&m, 8, 2),
                 6.0 * 7504658432.0 * 131072.0 + 32.0 * 3.0 * 1099511627776.0 * 16.0);

    /* the same identity for GPT-3 with the causal option: 6N tokens + half the attention */
    m = preset("gpt3-175b");
    m.causal = 1;
    assert_flops(sp_model_flops_per_step(&m, 4, 1),
                 6.0 * 174563733504.0 * 8192.0 + 96.0 * 3.0 * 103079215104.0 * 4.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presets),         cmocka_unit_test(test_preset_unknown_and_override),
        cmocka_unit_test(test_check),           cmocka_unit_test(test_gpt3_layer_flops),
        cmocka_unit_test(test_tp_division),     cmocka_unit_test(test_causal),
        cmocka_unit_test(test_ffn_generalised), cmocka_unit_test(test_llama3_8b),
        cmocka_unit_test(test_gpt3_params),     cmocka_unit_test(test_tp_comm),
        cmocka_unit_test(test_flops_per_step),  cmocka_unit_test(test_sp_params),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
