/* Backend registry and selection. */
#include "backend.h"

#include <string.h>

#include "log.h"

const char *const sp_backend_names[SP_BACKEND_COUNT] = {"auto", "host", "nccl"};

static const sp_backend_ops_t *backend_table[SP_BACKEND_COUNT] = {
    [SP_BACKEND_HOST] = &sp_backend_host_ops,
};

sp_status_t sp_backend_open(sp_backend_kind_t requested, MPI_Comm comm, sp_backend_t *be_p)
{
    sp_backend_kind_t kind = requested;
    sp_status_t status;

    if (kind == SP_BACKEND_AUTO) {
        kind = SP_BACKEND_HOST; /* the only backend this build has */
    }
    if (backend_table[kind] == NULL) {
        return SP_ERR_UNSUPPORTED;
    }
    memset(be_p, 0, sizeof(*be_p));
    status = backend_table[kind]->init(comm, &be_p->state);
    if (status != SP_OK) {
        return status;
    }
    be_p->ops = backend_table[kind];
    be_p->kind = kind;
    return SP_OK;
}

void sp_backend_close(sp_backend_t *be)
{
    if (be == NULL || be->ops == NULL) {
        return;
    }
    be->ops->fini(be->state);
    be->ops = NULL;
    be->state = NULL;
}
