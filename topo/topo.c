/* Node map from MPI's shared-memory split: node leaders are numbered in world-rank order and
 * every rank learns its node id from its leader. */
#include "topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

sp_status_t sp_topo_init(MPI_Comm comm, sp_topo_t *topo)
{
    sp_topo_rank_t mine;
    int len = 0;
    char name[MPI_MAX_PROCESSOR_NAME];

    memset(topo, 0, sizeof(*topo));
    topo->node_comm = topo->leader_comm = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &topo->rank);
    MPI_Comm_size(comm, &topo->nranks);
    if (gethostname(topo->host, sizeof(topo->host)) != 0 || topo->host[0] == '\0') {
        MPI_Get_processor_name(name, &len);
        snprintf(topo->host, sizeof(topo->host), "%.63s", name);
    }
    topo->host[SP_HOST_LEN - 1] = '\0';

    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, topo->rank, MPI_INFO_NULL,
                            &topo->node_comm) != MPI_SUCCESS) {
        sp_error("MPI_Comm_split_type(SHARED) failed");
        return SP_ERR_MPI;
    }
    MPI_Comm_rank(topo->node_comm, &topo->local_rank);
    MPI_Comm_size(topo->node_comm, &topo->local_size);
    MPI_Comm_split(comm, topo->local_rank == 0 ? 0 : MPI_UNDEFINED, topo->rank,
                   &topo->leader_comm);
    if (topo->local_rank == 0) {
        MPI_Comm_rank(topo->leader_comm, &topo->node);
        MPI_Comm_size(topo->leader_comm, &topo->nnodes);
    }
    MPI_Bcast(&topo->node, 1, MPI_INT, 0, topo->node_comm);
    MPI_Bcast(&topo->nnodes, 1, MPI_INT, 0, topo->node_comm);

    memset(&mine, 0, sizeof(mine));
    mine.rank = topo->rank;
    mine.node = topo->node;
    mine.local_rank = topo->local_rank;
    mine.local_size = topo->local_size;
    memcpy(mine.host, topo->host, sizeof(mine.host));
    if (topo->rank == 0) {
        topo->ranks = calloc((size_t)topo->nranks, sizeof(*topo->ranks));
    }
    /* rank 0 failing to allocate must not leave the others in the gather: agree first */
    int ok = topo->rank != 0 || topo->ranks != NULL;
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) {
        sp_error("cannot allocate the node map for %d ranks", topo->nranks);
        return SP_ERR_NOMEM;
    }
    MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, topo->ranks, (int)sizeof(mine), MPI_BYTE, 0,
               comm);
    return SP_OK;
}

void sp_topo_gather_devices(sp_topo_t *topo, MPI_Comm comm, const char *device,
                            const char *bus_id)
{
    struct {
        char device[SP_HOST_LEN];
        char bus_id[32];
    } mine, *all = NULL;

    memset(&mine, 0, sizeof(mine));
    snprintf(mine.device, sizeof(mine.device), "%s", device);
    snprintf(mine.bus_id, sizeof(mine.bus_id), "%s", bus_id);
    if (topo->rank == 0) {
        all = calloc((size_t)topo->nranks, sizeof(*all));
    }
    /* without room rank 0 still takes part, into its own entry, and records nothing */
    MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, all != NULL ? (void *)all : (void *)&mine,
               (int)sizeof(mine), MPI_BYTE, 0, comm);
    for (int r = 0; all != NULL && r < topo->nranks; r++) {
        memcpy(topo->ranks[r].device, all[r].device, sizeof(all[r].device));
        memcpy(topo->ranks[r].bus_id, all[r].bus_id, sizeof(all[r].bus_id));
    }
    free(all);
}

void sp_topo_cleanup(sp_topo_t *topo)
{
    if (topo->leader_comm != MPI_COMM_NULL) {
        MPI_Comm_free(&topo->leader_comm);
    }
    if (topo->node_comm != MPI_COMM_NULL) {
        MPI_Comm_free(&topo->node_comm);
    }
    free(topo->ranks);
    topo->ranks = NULL;
}

sp_topo_busiest_t sp_topo_busiest_node(const sp_topo_t *topo, MPI_Comm comm, int threads)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int node_threads = 0, in[2], worst[2], tc[2];
    sp_topo_busiest_t b;

    MPI_Allreduce(&threads, &node_threads, 1, MPI_INT, MPI_SUM, topo->node_comm);
    tc[0] = node_threads;
    tc[1] = (int)(cores > 0 ? cores : node_threads);
    in[0] = tc[0] - tc[1];
    MPI_Comm_rank(comm, &in[1]);
    MPI_Allreduce(in, worst, 1, MPI_2INT, MPI_MAXLOC, comm);
    MPI_Bcast(tc, 2, MPI_INT, worst[1], comm); /* that node's threads and cores */
    b.threads = tc[0];
    b.cores = tc[1];
    b.rank = worst[1];
    return b;
}
