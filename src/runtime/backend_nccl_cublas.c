/* cuBLAS loaded at run time (backend_nccl_cublas.h). */
#include "backend_nccl_cublas.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* dlsym's object pointer into a function pointer slot (POSIX guarantees the round trip) */
static int load_sym(void *lib, const char *name, void *slot)
{
    void *fn = dlsym(lib, name);

    memcpy(slot, &fn, sizeof(fn));
    return fn != NULL;
}

int sp_cublas_load(sp_cublas_api_t *api, char *err, size_t errlen)
{
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    void *lib = NULL;

    memset(api, 0, sizeof(*api));
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && lib == NULL; i++) {
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (lib == NULL) {
        snprintf(err, errlen, "cannot load cuBLAS (libcublas.so.13): %s", dlerror());
        return 1;
    }
    if (!(load_sym(lib, "cublasCreate_v2", &api->create) &&
          load_sym(lib, "cublasDestroy_v2", &api->destroy) &&
          load_sym(lib, "cublasSetStream_v2", &api->set_stream) &&
          load_sym(lib, "cublasSetWorkspace_v2", &api->set_workspace) &&
          load_sym(lib, "cublasSgemm_v2", &api->sgemm) &&
          load_sym(lib, "cublasDgemm_v2", &api->dgemm) &&
          load_sym(lib, "cublasGemmEx", &api->gemm_ex) &&
          load_sym(lib, "cublasGemmStridedBatchedEx", &api->gemm_strided_batched_ex) &&
          load_sym(lib, "cublasGetStatusString", &api->status_string) &&
          load_sym(lib, "cublasGetVersion_v2", &api->get_version))) {
        snprintf(err, errlen, "cuBLAS lacks a function scaleprobe uses (%s)", dlerror());
        dlclose(lib);
        memset(api, 0, sizeof(*api));
        return 1;
    }
    api->lib = lib;
    return 0;
}
