/* Loading the host's CBLAS at run time (blas.h). */
#include "blas.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* libopenblas first, then any CBLAS the system's BLAS alternative provides */
static const char *const blas_libs[] = {"libopenblas.so.0", "libopenblas.so", "libcblas.so.3",
                                        "libblas.so.3"};

const char sp_blas_tried[] = "libopenblas.so.0, libcblas.so.3, libblas.so.3";

int sp_blas_open(sp_blas_t *b)
{
    memset(b, 0, sizeof(*b));
    for (size_t i = 0; i < sizeof(blas_libs) / sizeof(blas_libs[0]) && b->lib == NULL; i++) {
        void *lib = dlopen(blas_libs[i], RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL) {
            continue;
        }
        /* POSIX: a function pointer through a void * object */
        *(void **)&b->sgemm = dlsym(lib, "cblas_sgemm");
        *(void **)&b->dgemm = dlsym(lib, "cblas_dgemm");
        if (b->sgemm == NULL || b->dgemm == NULL) {
            dlclose(lib);
            continue;
        }
        b->lib = lib;
        snprintf(b->name, sizeof(b->name), "%s", blas_libs[i]);
        *(void **)&b->set_threads = dlsym(lib, "openblas_set_num_threads");
        *(void **)&b->get_threads = dlsym(lib, "openblas_get_num_threads");
        *(void **)&b->config = dlsym(lib, "openblas_get_config");
    }
    return b->lib != NULL;
}

void sp_blas_close(sp_blas_t *b)
{
    if (b->lib != NULL) {
        dlclose(b->lib);
    }
    memset(b, 0, sizeof(*b));
}

int sp_blas_threads(sp_blas_t *b, int threads)
{
    if (b->set_threads != NULL) {
        b->set_threads(threads);
    }
    return b->get_threads != NULL ? b->get_threads() : 1;
}
