/* Status agreement at phase boundaries. */
#include "context.h"

sp_status_t sp_agree(MPI_Comm comm, sp_status_t status)
{
    int mine = (int)status;
    int lowest = mine;

    if (MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
        return SP_ERR_MPI;
    }
    /* a rank's own error wins, so it is the one its caller reports; the others take the
     * lowest code, the same on all of them */
    return mine != SP_OK ? status : (sp_status_t)lowest;
}

sp_status_t sp_ctx_agree(const sp_ctx_t *ctx, sp_status_t status)
{
    return sp_agree(ctx->world, status);
}
