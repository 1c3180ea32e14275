/* Backend registry and selection. Selection is collective: every rank probes its own GPUs, the
 * ranks agree, and when nccl cannot run, rank 0 alone gets the message naming the ranks. */
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_policy.h"
#include "gpu_util.h"
#include "log.h"

const char *const sp_backend_names[SP_BACKEND_COUNT] = {"auto", "host", "nccl"};

static const sp_backend_ops_t *backend_table[SP_BACKEND_COUNT] = {
    [SP_BACKEND_HOST] = &sp_backend_host_ops,
#ifdef SP_HAVE_NCCL
    [SP_BACKEND_NCCL] = &sp_backend_nccl_ops,
#endif
};

double sp_gemm_flops(const sp_gemm_t *g)
{
    return 2.0 * (double)g->m * (double)g->n * (double)g->k * (double)g->batch * (double)g->count;
}

int sp_backend_have_nccl(void)
{
    return backend_table[SP_BACKEND_NCCL] != NULL;
}

#ifndef SP_HAVE_NCCL
int sp_backend_gpu_count(char *err, size_t errlen)
{
    snprintf(err, errlen, "this scaleprobe was built without the NCCL/CUDA backend");
    return 0;
}

int sp_backend_gpu_bus_id(int device, char *bus_id, size_t len)
{
    (void)device;
    snprintf(bus_id, len, "-");
    return -1;
}
#endif

/* 1 when no two ranks of this node chose one device (compared by PCI bus id: with per-task
 * binding every rank calls its device 0, yet each is another GPU). ok says whether this rank
 * has a device at all; ranks without one take no part. Collective over comm. */
static int devices_distinct(MPI_Comm comm, int ok, int device, char *why, size_t whylen)
{
    enum { BUS = 32 };
    MPI_Comm node;
    char mine[BUS] = "";
    char *all = NULL;
    int n = 0;
    int a = 0, b = 0;
    int shared = 0;

    if (ok && sp_backend_gpu_bus_id(device, mine, sizeof(mine)) != 0) {
        snprintf(mine, sizeof(mine), "device %d", device); /* distinct only by ordinal */
    }
    if (!ok) {
        snprintf(mine, sizeof(mine), "-");
    }
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &n);
    all = calloc((size_t)n, BUS);
    if (all == NULL) {
        MPI_Comm_free(&node);
        snprintf(why, whylen, "out of memory");
        return 0;
    }
    MPI_Allgather(mine, BUS, MPI_CHAR, all, BUS, MPI_CHAR, node);
    for (int i = 0; i < n; i++) {
        if (strcmp(all + (size_t)i * BUS, "-") == 0) {
            snprintf(all + (size_t)i * BUS, BUS, "-%d", i); /* no device: shares nothing */
        }
    }
    shared = sp_gpu_find_shared_device(all, BUS, n, &a, &b);
    if (shared) {
        snprintf(why, whylen,
                 "node-local ranks %d and %d would share GPU %s (%d ranks on the node see "
                 "fewer GPUs); NCCL needs one GPU per rank: use fewer ranks per node or "
                 "--gpus-per-task=1",
                 a, b, all + (size_t)a * BUS, n);
    }
    free(all);
    MPI_Comm_free(&node);
    return !shared;
}

/* Agree on `ok` across ranks; when some rank is not ok, rank 0 learns the lowest such rank's
 * reason and how many ranks failed. Returns 1 when every rank is ok. */
static int agree_with_reason(MPI_Comm comm, int ok, char *why, size_t whylen, int *nbad_p,
                             int *first_p)
{
    int rank;
    int bad = !ok;
    int nbad = 0;
    struct {
        int bad;
        int rank;
    } mine, worst;

    MPI_Comm_rank(comm, &rank);
    MPI_Allreduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, comm);
    *nbad_p = nbad;
    if (nbad == 0) {
        return 1;
    }
    /* MINLOC on -bad picks the lowest rank among the failed ones */
    mine.bad = -bad;
    mine.rank = rank;
    MPI_Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MINLOC, comm);
    *first_p = worst.rank;
    if (worst.rank != 0) {
        if (rank == worst.rank) {
            MPI_Send(why, (int)whylen, MPI_CHAR, 0, 0, comm);
        } else if (rank == 0) {
            MPI_Recv(why, (int)whylen, MPI_CHAR, worst.rank, 0, comm, MPI_STATUS_IGNORE);
        }
    }
    why[whylen - 1] = '\0';
    return 0;
}

sp_status_t sp_backend_open(sp_backend_kind_t requested, MPI_Comm comm,
                            const sp_backend_config_t *cfg, sp_backend_t *be_p, char *err,
                            size_t errlen)
{
    sp_backend_kind_t kind = requested;
    char why[256] = "";
    int nranks;
    int nbad = 0;
    int first = 0;
    int ok;
    sp_status_t status;

    MPI_Comm_size(comm, &nranks);
    err[0] = '\0';
    if (kind == SP_BACKEND_AUTO || kind == SP_BACKEND_NCCL) {
        int ngpu;
        int conn = sp_gpu_max_connections(cfg->streams, getenv("CUDA_DEVICE_MAX_CONNECTIONS"));
        if (conn > 0) {
            /* before the first CUDA call: the device's context reads it once, at creation */
            char v[16];
            snprintf(v, sizeof(v), "%d", conn);
            setenv("CUDA_DEVICE_MAX_CONNECTIONS", v, 0);
        }
        ngpu = sp_backend_gpu_count(why, sizeof(why));
        int device = -1;
        ok = ngpu > 0 && sp_gpu_select_device(cfg->local_rank, cfg->local_size, ngpu, cfg->device,
                                              &device, why, sizeof(why)) == SP_OK;
        if (cfg->device < 0) {
            /* an explicit --device is the user's choice; the automatic one must not share */
            ok = devices_distinct(comm, ok, device, why, sizeof(why)) && ok;
        }
        ok = agree_with_reason(comm, ok, why, sizeof(why), &nbad, &first);
        if (!ok) {
            snprintf(err, errlen, "no usable GPU on %d of %d ranks (rank %d: %s)", nbad, nranks,
                     first, why);
            if (kind == SP_BACKEND_NCCL) {
                return SP_ERR_UNSUPPORTED;
            }
        }
        kind = ok ? SP_BACKEND_NCCL : SP_BACKEND_HOST;
    }
    memset(be_p, 0, sizeof(*be_p));
    why[0] = '\0';
    status = backend_table[kind]->init(comm, cfg, &be_p->state, why, sizeof(why));
    {
        /* every rank returns the same status; the message names the ranks that caused the
         * failure, not those that only gave up because of them (SP_ERR_PEER) */
        sp_status_t agreed = status;
        int cause = status != SP_OK && status != SP_ERR_PEER;
        MPI_Allreduce(&status, &agreed, 1, MPI_INT, MPI_MIN, comm);
        if (agreed != SP_OK) {
            if (status == SP_OK) {
                backend_table[kind]->fini(be_p->state);
                be_p->state = NULL;
            }
            agree_with_reason(comm, !cause, why, sizeof(why), &nbad, &first);
            snprintf(err, errlen, "%s backend failed to start on %d of %d ranks (rank %d: %s)",
                     backend_table[kind]->name, nbad, nranks, first, why);
            return agreed;
        }
    }
    be_p->ops = backend_table[kind];
    be_p->kind = kind;
    return SP_OK;
}

void sp_backend_abort(sp_backend_t *be)
{
    if (be != NULL && be->ops != NULL) {
        be->ops->abort(be->state);
    }
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
