/* The proxy's lanes (streams): what class of traffic each carries, the communicator it is created
 * on, the pipeline lanes by edge colour, and who is in the embedding group (program.h). */
#include "program.h"

static const struct {
    sp_lane_class_t cls;
    sp_group_t group;
} lane_table[SP_LANE_COUNT] = {
    [SP_LANE_COMPUTE] = {SP_LANE_CLASS_COMPUTE, SP_GROUP_WORLD},
    [SP_LANE_TP] = {SP_LANE_CLASS_TP, SP_GROUP_TP},
    [SP_LANE_PP_FWD0] = {SP_LANE_CLASS_PP, SP_GROUP_PP},
    [SP_LANE_PP_FWD1] = {SP_LANE_CLASS_PP, SP_GROUP_PP},
    [SP_LANE_PP_FWD2] = {SP_LANE_CLASS_PP, SP_GROUP_PP},
    [SP_LANE_PP_BWD0] = {SP_LANE_CLASS_PP, SP_GROUP_PP},
    [SP_LANE_PP_BWD1] = {SP_LANE_CLASS_PP, SP_GROUP_PP},
    [SP_LANE_PP_BWD2] = {SP_LANE_CLASS_PP, SP_GROUP_PP},
    [SP_LANE_DP] = {SP_LANE_CLASS_DP, SP_GROUP_DP},
    [SP_LANE_DP_GATHER] = {SP_LANE_CLASS_DP, SP_GROUP_DP},
    [SP_LANE_PP_FWD3] = {SP_LANE_CLASS_PP, SP_GROUP_PP},
    [SP_LANE_PP_BWD3] = {SP_LANE_CLASS_PP, SP_GROUP_PP},
    /* a gradient reduction, charged with the DP class's (Megatron times it in its grad sync) */
    [SP_LANE_EMB] = {SP_LANE_CLASS_DP, SP_GROUP_EMB},
};

static const char *const class_names[SP_LANE_CLASS_COUNT] = {"compute", "tp", "pp", "dp"};

static const sp_lane_t pp_lanes[2][SP_PP_COLOURS] = {
    {SP_LANE_PP_FWD0, SP_LANE_PP_FWD1, SP_LANE_PP_FWD2, SP_LANE_PP_FWD3},
    {SP_LANE_PP_BWD0, SP_LANE_PP_BWD1, SP_LANE_PP_BWD2, SP_LANE_PP_BWD3},
};

sp_lane_class_t sp_lane_class(int lane)
{
    return lane >= 0 && lane < SP_LANE_COUNT ? lane_table[lane].cls : SP_LANE_CLASS_COMPUTE;
}

sp_group_t sp_lane_group(int lane)
{
    return lane >= 0 && lane < SP_LANE_COUNT ? lane_table[lane].group : SP_GROUP_WORLD;
}

const char *sp_lane_class_name(int cls)
{
    return cls >= 0 && cls < SP_LANE_CLASS_COUNT ? class_names[cls] : "?";
}

sp_lane_t sp__lane_pp(int backward, int colour)
{
    return pp_lanes[backward ? 1 : 0][colour];
}

int sp_lane_pp_colour(int lane)
{
    for (int d = 0; d < 2; d++) {
        for (int col = 0; col < SP_PP_COLOURS; col++) {
            if ((int)pp_lanes[d][col] == lane) {
                return col;
            }
        }
    }
    return -1;
}

/* Colour of the pipeline edge from virtual stage e to e+1 (both ends compute the same one).
 * Down the stages (a -> a+1) and across the loop's wrap (p-1 -> 0): a mod 2, and 2 for the wrap
 * of an odd ring, so that no lane both sends and receives on a ring. Up the stages (a -> a-1,
 * the V's way back): 2 + (a-1) mod 2, so that a stage's four edges of one direction (in and out,
 * down and up) are on four lanes. No placement has both a wrap and up edges. */
int sp__program_edge_colour(const sp_program_config_t *c, int e)
{
    int a, ca, b, cb;

    sp_schedule_locate(c->kind, c->p, c->v, e, &a, &ca);
    sp_schedule_locate(c->kind, c->p, c->v, e + 1, &b, &cb);
    if (ca == cb && b == a - 1) {
        return 2 + b % 2;
    }
    return (c->p % 2 == 1 && a == c->p - 1) ? 2 : a % 2;
}

int sp_program_pp_colours(const sp_program_config_t *c)
{
    int n = 3; /* the loop's three, created whatever the schedule */

    for (int e = 0; e + 1 < c->p * c->v; e++) {
        int col = sp__program_edge_colour(c, e);
        n = col + 1 > n ? col + 1 : n;
    }
    return n;
}

/* The stages holding the first and the last virtual stage. */
static void end_stages(const sp_program_config_t *c, int *first_p, int *last_p)
{
    int chunk;

    sp_schedule_locate(c->kind, c->p, c->v, 0, first_p, &chunk);
    sp_schedule_locate(c->kind, c->p, c->v, c->p * c->v - 1, last_p, &chunk);
}

int sp_program_shared_output_weight(const sp_program_config_t *c)
{
    int first, last;

    end_stages(c, &first, &last);
    return c->tied_embeddings && first == last;
}

int sp_program_embedding_group(const sp_program_config_t *c, int stage)
{
    int first, last;

    if (!c->tied_embeddings || c->p < 2) {
        return -1;
    }
    end_stages(c, &first, &last);
    if (first == last) { /* the V: one rank holds both, the weight is shared in its memory */
        return -1;
    }
    return stage == first || stage == last;
}

uint64_t sp_program_embedding_grad_elements(const sp_program_config_t *c, int stage)
{
    uint64_t n;

    if (sp_program_embedding_group(c, stage) != 1) {
        return 0;
    }
    n = c->logits_param_bytes / sp_dtype_size(c->dtype);
    /* Megatron-FSDP: finalize_model_grads' _allreduce_embedding_grad takes the gradient's
     * _local_tensor when ddp_config.use_megatron_fsdp, so the embedding group reduces this DP
     * rank's shard (padded to a whole share), not the full vocab/tp x h (NVIDIA/Megatron-LM,
     * megatron/core/distributed/finalize_model_grads.py; docs/METHODOLOGY.md) */
    if (c->dp > 1 && c->dp_mode == SP_DP_FSDP) {
        n = (n + (uint64_t)c->dp - 1) / (uint64_t)c->dp;
    }
    return n;
}

uint64_t sp_lane_seq(int lane, int step, int world, const int colors[3], uint64_t max_tasks,
                     size_t index)
{
    sp_group_t g = sp_lane_group(lane);
    int fam = g == SP_GROUP_DP ? 1 : g == SP_GROUP_EMB ? 2 : 0;

    return (((uint64_t)step * 3u + (uint64_t)fam) * (uint64_t)world + (uint64_t)colors[fam]) *
               max_tasks +
           (g == SP_GROUP_EMB ? 0u : (uint64_t)index);
}
