/* NCCL as the nccl backend sees it: a table of NCCL's functions loaded with dlopen when the
 * backend starts, so the binary has no link-time dependency on libnccl and runs the host backend
 * where no NCCL is installed (a machine or chroot with only the binary). Internal to the nccl
 * backend's files. */
#ifndef SP_BACKEND_NCCL_API_H
#define SP_BACKEND_NCCL_API_H

#include <cuda_runtime.h>
#include <nccl.h>
#include <stddef.h>

#include "status.h"

/* The functions every NCCL since 2.18 has; the prototypes come from nccl.h. */
#define SP_NCCL_REQUIRED(X)                                                                        \
    X(GetVersion)                                                                                  \
    X(GetErrorString)                                                                              \
    X(GetLastError)                                                                                \
    X(GetUniqueId)                                                                                 \
    X(CommInitRankConfig)                                                                          \
    X(CommAbort)                                                                                   \
    X(CommFinalize)                                                                                \
    X(CommDestroy)                                                                                 \
    X(CommGetAsyncError)                                                                           \
    X(AllReduce)                                                                                   \
    X(AllGather)                                                                                   \
    X(ReduceScatter)                                                                               \
    X(Broadcast)                                                                                   \
    X(Reduce)                                                                                      \
    X(Send)                                                                                        \
    X(Recv)                                                                                        \
    X(GroupStart)                                                                                  \
    X(GroupEnd)                                                                                    \
    X(RedOpCreatePreMulSum)                                                                        \
    X(RedOpDestroy)

typedef ncclResult_t (*sp_nccl_block_fn)(const void *send, void *recv, size_t count,
                                         ncclDataType_t dt, ncclComm_t comm, cudaStream_t stream);
typedef ncclResult_t (*sp_nccl_rooted_fn)(const void *send, void *recv, size_t count,
                                          ncclDataType_t dt, int root, ncclComm_t comm,
                                          cudaStream_t stream);

typedef struct {
    void *lib;
    char path[512]; /* the file dlopen took, from dlinfo */
    int version;    /* ncclGetVersion's code */
#define SP_NCCL_MEMBER(f) __typeof__(&nccl##f) f;
    SP_NCCL_REQUIRED(SP_NCCL_MEMBER)
#undef SP_NCCL_MEMBER
    /* NCCL 2.28 and later; NULL before: the block exchanges are grouped send/recv then */
    sp_nccl_block_fn AlltoAll;
    sp_nccl_rooted_fn Gather;
    sp_nccl_rooted_fn Scatter;
} sp_nccl_api_t;

/*
 * Load NCCL into api: $NCCL_HOME/lib (and lib64) first, then libnccl.so.2 through the dynamic
 * loader's search (LD_LIBRARY_PATH, ld.so.cache), then the library the build found. On failure
 * err says which were tried and dlerror's reason, and api is left empty. Not collective.
 */
sp_status_t sp__nccl_api_load(sp_nccl_api_t *api, char *err, size_t errlen);

/* dlclose; api may be empty. */
void sp__nccl_api_unload(sp_nccl_api_t *api);

#endif
