/* Checking a program's configuration and building its schedule (program.h). */
#include "program.h"

#include <stdlib.h>

#include "log.h"

static int grad_dtype_ok(sp_dtype_t d)
{
    return d == SP_DTYPE_FLOAT || d == SP_DTYPE_BFLOAT16 || d == SP_DTYPE_HALF ||
           d == SP_DTYPE_DOUBLE;
}

sp_status_t sp__program_check_config(const sp_program_config_t *c)
{
    if (c->p < 1 || c->m < 1 || c->v < 1 || c->tp < 1 || c->dp < 1 || c->layers_per_chunk < 1 ||
        c->stage < 0 || c->stage >= c->p || !(c->flops_per_ns > 0.0) ||
        sp_dtype_size(c->dtype) == 0 || c->bucket_bytes == 0 || !grad_dtype_ok(c->grad_dtype) ||
        (c->tp > 1 && c->tokens == 0)) {
        sp_error("proxy program: invalid configuration (p=%d m=%d v=%d stage=%d tp=%d dp=%d "
                 "layers per chunk %d)",
                 c->p, c->m, c->v, c->stage, c->tp, c->dp, c->layers_per_chunk);
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

sp_status_t sp__program_build_schedule(const sp_program_config_t *c, sp_program_t *prog)
{
    size_t max = sp_schedule_op_count(c->kind, c->p, c->m, c->v);
    const char *why = sp_schedule_why_invalid_grouped(c->kind, c->p, c->m, c->v, c->mb_group);

    if (why != NULL) {
        sp_error("proxy program: invalid schedule %s with p=%d m=%d v=%d group %d: %s",
                 sp_schedule_kind_name(c->kind), c->p, c->m, c->v, c->mb_group, why);
        return SP_ERR_INVALID;
    }
    if (max == 0) { /* m % p != 0 with a group size that allows it */
        max = (size_t)(sp_schedule_splits_bw(c->kind) ? 3 : 2) * (size_t)c->m * (size_t)c->v;
    }
    prog->sched = calloc(max, sizeof(*prog->sched));
    if (prog->sched == NULL) {
        return SP_ERR_NOMEM;
    }
    return sp_schedule_build_grouped(c->kind, c->p, c->m, c->v, c->mb_group, c->stage, prog->sched, max,
                             &prog->n_sched_ops);
}
