/* The sweep's per-sample arrival gathering and late-rank counts (see sweep_late.h). */
#include "sweep_late.h"

#include <stddef.h>
#include <stdlib.h>

/* The MPI type of struct sp_sweep_arrival, so one gather carries a sample's time and arrival. */
static void arrival_type_create(MPI_Datatype *type_p)
{
    const int lens[2] = {1, 1};
    const MPI_Aint disp[2] = {offsetof(struct sp_sweep_arrival, us),
                              offsetof(struct sp_sweep_arrival, arrival_ns)};
    const MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT64_T};
    MPI_Datatype t;

    MPI_Type_create_struct(2, lens, disp, types, &t);
    MPI_Type_create_resized(t, 0, (MPI_Aint)sizeof(struct sp_sweep_arrival), type_p);
    MPI_Type_free(&t);
    MPI_Type_commit(type_p);
}

sp_status_t sp__sweep_late_init(sp_ctx_t *ctx, sp_sweep_bufs_t *bufs)
{
    sp_sweep_point_t *p = &bufs->point;
    int64_t mine = sp_clock_err_ns(&ctx->clock);
    int64_t err_ns = 0;

    arrival_type_create(&bufs->arrival_type);
    bufs->have_arrival_type = 1;
    /* the bound the timeline analyses use: two arrivals closer than it cannot be ordered */
    MPI_Allreduce(&mine, &err_ns, 1, MPI_INT64_T, MPI_MAX, ctx->world);
    if (ctx->rank != 0) {
        return SP_OK;
    }
    p->gathered = calloc((size_t)ctx->nranks, sizeof(*p->gathered));
    p->arrival_ns = calloc((size_t)ctx->nranks, sizeof(*p->arrival_ns));
    if (p->gathered == NULL || p->arrival_ns == NULL) {
        return SP_ERR_NOMEM;
    }
    return sp_late_init(&p->late, ctx->nranks, err_ns);
}

void sp__sweep_late_cleanup(sp_sweep_bufs_t *bufs)
{
    sp_sweep_point_t *p = &bufs->point;

    sp_late_cleanup(&p->late);
    free(p->arrival_ns);
    free(p->gathered);
    p->arrival_ns = NULL;
    p->gathered = NULL;
    if (bufs->have_arrival_type) {
        MPI_Type_free(&bufs->arrival_type);
        bufs->have_arrival_type = 0;
    }
}

void sp__sweep_late_record(const sp_ctx_t *ctx, sp_sweep_point_t *p, size_t n, long k)
{
    int worst = 0;

    for (int r = 0; r < ctx->nranks; r++) {
        worst = p->gathered[r].us > p->gathered[worst].us ? r : worst;
        p->arrival_ns[r] = p->gathered[r].arrival_ns;
    }
    p->samples[n].time_us = p->gathered[worst].us;
    p->samples[n].slowest_rank = worst;
    /* the batch of the rank that took longest (the sample's value comes from it), so a lateness
     * counts only where it is a material part of what the sample measured */
    sp_late_add(&p->late, p->arrival_ns, (int64_t)(p->gathered[worst].us * 1e3 * (double)k));
}
