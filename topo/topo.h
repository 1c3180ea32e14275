/* Who is where: node id, node-local rank and hostname of every rank, from
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED). Every later part relies on this node map. */
#ifndef SP_TOPO_H
#define SP_TOPO_H

#include <mpi.h>

#include "status.h"

#define SP_HOST_LEN 64

/* One row of /topology/ranks. */
typedef struct {
    int rank;
    int node;         /* 0..nnodes-1, ordered by the lowest world rank on the node */
    int local_rank;
    int local_size;
    char host[SP_HOST_LEN];
    char device[SP_HOST_LEN]; /* GPU name, "cpu" on the host backend */
    char bus_id[32];          /* PCI bus id of the GPU, "-" on the host backend */
} sp_topo_rank_t;

typedef struct {
    int rank;
    int nranks;
    int node;
    int nnodes;
    int local_rank;
    int local_size;
    char host[SP_HOST_LEN];
    MPI_Comm node_comm;      /* ranks of this node */
    MPI_Comm leader_comm;    /* local rank 0 of every node; MPI_COMM_NULL elsewhere */
    sp_topo_rank_t *ranks;   /* all ranks, on rank 0 only (NULL elsewhere); owned here */
} sp_topo_t;

/* Build the node map. Collective over comm. Rank 0 also gathers every rank's row. */
sp_status_t sp_topo_init(MPI_Comm comm, sp_topo_t *topo);

/* Record every rank's device (name and bus id) in rank 0's table. Collective over comm. */
void sp_topo_gather_devices(sp_topo_t *topo, MPI_Comm comm, const char *device,
                            const char *bus_id);

/* The node whose threads most exceed its online cores: each rank gives its busy threads; the
 * node's sum against sysconf's online cores; every rank gets that node's threads and cores and
 * a rank on it (the lowest of those with the largest excess). Collective over comm. */
typedef struct {
    int threads; /* busy threads of that node's ranks, summed */
    int cores;   /* its online cores */
    int rank;    /* a rank of comm on it */
} sp_topo_busiest_t;
sp_topo_busiest_t sp_topo_busiest_node(const sp_topo_t *topo, MPI_Comm comm, int threads);

/* Free communicators and the gathered table. */
void sp_topo_cleanup(sp_topo_t *topo);

#endif
