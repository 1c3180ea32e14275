/* The GEMMs of the proxy's compute (--compute gemm): the shapes of one transformer layer and of
 * the output layer on one tensor-parallel rank, per part of the work a compute task can hold
 * (forward, input gradient, weight gradient of the attention block, the MLP and the logits).
 * Pure arithmetic from the model; the engine turns a task's parts into a list of sp_gemm_t. */
#ifndef SP_GEMM_PLAN_H
#define SP_GEMM_PLAN_H

#include <stddef.h>

#include "backend.h"
#include "model.h"
#include "program.h"
#include "status.h"

#define SP_PART_MAX_GEMMS 6

/* Per part (program.h, sp_part_t) its GEMMs on one TP rank (count 1 each). With T = b*s
 * tokens, d = h/heads, hkv the key/value width and the sharded sizes divided by tp (heads, the
 * QKV width h + 2hkv, ffn, the vocabulary): a forward product is [T x in] * [in x out], its
 * input gradient [T x out] * [out x in], its weight gradient [in x T] * [T x out]; the
 * attention core is b*heads/tp products of [s x d] * [d x s] and [s x s] * [s x d] (causal:
 * half of the s^2 side, s/2 columns or inner size). */
typedef struct {
    sp_gemm_t gemm[SP_PART_COUNT][SP_PART_MAX_GEMMS];
    int n[SP_PART_COUNT];
} sp_gemm_plan_t;

/* Build the plan of a checked model on tp ranks. SP_ERR_INVALID (not logged) for tp < 1. */
sp_status_t sp_gemm_plan_build(const sp_model_t *model, int tp, sp_gemm_plan_t *plan_p);

/* FLOPs of one part (the sum of its GEMMs). */
double sp_gemm_plan_part_flops(const sp_gemm_plan_t *plan, sp_part_t part);

/* Names for messages and tests: "attn_fwd", ... */
extern const char *const sp_part_names[SP_PART_COUNT];

#endif
