/* The nccl backend's NCCL loader (backend_nccl_api.h): dlopen and one dlsym per function. */
#define _GNU_SOURCE /* dlinfo */
#include "backend_nccl_api.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SP_NCCL_BUILD_LIBDIR
#define SP_NCCL_BUILD_LIBDIR ""
#endif

/* Candidate i of the search (0-based) into path; 0 when there are no more. */
static int candidate(int i, char *path, size_t len)
{
    const char *home = getenv("NCCL_HOME");

    switch (i) {
    case 0:
        snprintf(path, len, "%s/lib/libnccl.so.2", home != NULL ? home : "");
        return 1;
    case 1:
        snprintf(path, len, "%s/lib64/libnccl.so.2", home != NULL ? home : "");
        return 1;
    case 2:
        snprintf(path, len, "libnccl.so.2");
        return 1;
    case 3:
        snprintf(path, len, "%s/libnccl.so.2", SP_NCCL_BUILD_LIBDIR);
        return 1;
    default:
        return 0;
    }
}

static int skip_candidate(int i)
{
    const char *home = getenv("NCCL_HOME");

    if (i <= 1) {
        return home == NULL || home[0] == '\0';
    }
    return i == 3 && SP_NCCL_BUILD_LIBDIR[0] == '\0';
}

sp_status_t sp__nccl_api_load(sp_nccl_api_t *api, char *err, size_t errlen)
{
    char path[512];
    char why[256] = "not found";
    struct link_map *map = NULL;

    memset(api, 0, sizeof(*api));
    for (int i = 0; api->lib == NULL && candidate(i, path, sizeof(path)); i++) {
        if (skip_candidate(i)) {
            continue;
        }
        api->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (api->lib == NULL) {
            snprintf(why, sizeof(why), "%s", dlerror());
        }
    }
    if (api->lib == NULL) {
        snprintf(err, errlen,
                 "cannot load NCCL (libnccl.so.2 from $NCCL_HOME/lib, the loader's path or "
                 "%s): %s",
                 SP_NCCL_BUILD_LIBDIR[0] != '\0' ? SP_NCCL_BUILD_LIBDIR : "-", why);
        return SP_ERR_UNSUPPORTED;
    }
    if (dlinfo(api->lib, RTLD_DI_LINKMAP, &map) == 0 && map != NULL) {
        snprintf(api->path, sizeof(api->path), "%s", map->l_name);
    }
#define SP_NCCL_LOAD(f)                                                                            \
    if (api->lib != NULL) {                                                                        \
        *(void **)&api->f = dlsym(api->lib, "nccl" #f);                                            \
        if (api->f == NULL) {                                                                      \
            snprintf(err, errlen, "%s has no nccl" #f " (NCCL 2.18 or later is needed)",         \
                     api->path);                                                                   \
            sp__nccl_api_unload(api);                                                              \
        }                                                                                          \
    }
    SP_NCCL_REQUIRED(SP_NCCL_LOAD)
#undef SP_NCCL_LOAD
    if (api->lib == NULL) {
        return SP_ERR_UNSUPPORTED;
    }
    *(void **)&api->AlltoAll = dlsym(api->lib, "ncclAlltoAll");
    *(void **)&api->Gather = dlsym(api->lib, "ncclGather");
    *(void **)&api->Scatter = dlsym(api->lib, "ncclScatter");
    if (api->GetVersion(&api->version) != ncclSuccess) {
        api->version = 0;
    }
    return SP_OK;
}

void sp__nccl_api_unload(sp_nccl_api_t *api)
{
    if (api->lib != NULL) {
        dlclose(api->lib);
    }
    memset(api, 0, sizeof(*api));
}
