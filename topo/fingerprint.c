/* Environment capture by allow-list with redaction, and the versions every run records. */
#include "fingerprint.h"

#include <ctype.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static const char *const allowed_prefixes[] = {"NCCL_", "UCX_",   "OMPI_", "PMIX_", "SLURM_",
                                               "CUDA_", "NVIDIA_", "HWLOC_", "OMP_"};
static const char *const allowed_names[] = {"LD_LIBRARY_PATH", "PATH", "SCALEPROBE_LOG"};
static const char *const secret_words[] = {"TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD",
                                           "CREDENTIAL"};

int sp_env_allowed(const char *name)
{
    for (size_t i = 0; i < sizeof(allowed_prefixes) / sizeof(allowed_prefixes[0]); i++) {
        if (strncmp(name, allowed_prefixes[i], strlen(allowed_prefixes[i])) == 0) {
            return 1;
        }
    }
    for (size_t i = 0; i < sizeof(allowed_names) / sizeof(allowed_names[0]); i++) {
        if (strcmp(name, allowed_names[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

int sp_env_secret(const char *name)
{
    char upper[256];
    size_t n = strlen(name);

    if (n >= sizeof(upper)) {
        n = sizeof(upper) - 1;
    }
    for (size_t i = 0; i < n; i++) {
        upper[i] = (char)toupper((unsigned char)name[i]);
    }
    upper[n] = '\0';
    for (size_t i = 0; i < sizeof(secret_words) / sizeof(secret_words[0]); i++) {
        if (strstr(upper, secret_words[i]) != NULL) {
            return 1;
        }
    }
    return 0;
}

static int cmp_kv(const void *a, const void *b)
{
    return strcmp(((const sp_kv_t *)a)->key, ((const sp_kv_t *)b)->key);
}

int sp_env_capture(char *const *env, sp_kv_t *out, int max)
{
    int n = 0;

    for (size_t i = 0; env != NULL && env[i] != NULL && n < max; i++) {
        const char *eq = strchr(env[i], '=');
        size_t len;
        if (eq == NULL) {
            continue;
        }
        len = (size_t)(eq - env[i]);
        if (len == 0 || len >= sizeof(out[n].key)) {
            continue;
        }
        memcpy(out[n].key, env[i], len);
        out[n].key[len] = '\0';
        if (!sp_env_allowed(out[n].key)) {
            continue;
        }
        snprintf(out[n].value, sizeof(out[n].value), "%s",
                 sp_env_secret(out[n].key) ? "<redacted>" : eq + 1);
        n++;
    }
    qsort(out, (size_t)n, sizeof(*out), cmp_kv);
    return n;
}

int sp_fingerprint_versions(sp_kv_t *out, int max)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    int n = 0;
    unsigned maj = 0, min = 0, rel = 0;
    struct utsname u;

    if (n < max && MPI_Get_library_version(lib, &len) == MPI_SUCCESS) {
        char *nl = strchr(lib, '\n');
        if (nl != NULL) {
            *nl = '\0'; /* the first line names the library and its version */
        }
        snprintf(out[n].key, sizeof(out[n].key), "mpi_library");
        snprintf(out[n].value, sizeof(out[n].value), "%.255s", lib);
        n++;
    }
    if (n < max && H5get_libversion(&maj, &min, &rel) >= 0) {
        snprintf(out[n].key, sizeof(out[n].key), "hdf5_library");
        snprintf(out[n].value, sizeof(out[n].value), "%u.%u.%u", maj, min, rel);
        n++;
    }
    if (n < max && uname(&u) == 0) {
        snprintf(out[n].key, sizeof(out[n].key), "kernel");
        snprintf(out[n].value, sizeof(out[n].value), "%.64s %.64s %.64s", u.sysname, u.release,
                 u.machine);
        n++;
    }
    return n;
}
