/* Hardware and library facts of one rank: hwloc for binding, NUMA, NICs and GPUs; NVML and the
 * CUDA/NCCL/UCX libraries through dlopen/dlsym, so none of them is a link-time dependency. */
#define _GNU_SOURCE /* RTLD_DEFAULT, RTLD_NOLOAD */
#include "hwinfo.h"

#include <dlfcn.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_policy.h"
#include "gpu_util.h"
#include "nvml.h"

/* Append name to a comma-separated list, skipping duplicates; a full list is left as it is. */
static void list_add(char *list, size_t len, const char *name)
{
    size_t n = strlen(list);
    size_t k = strlen(name);
    const char *p = list;

    while ((p = strstr(p, name)) != NULL) {
        if ((p == list || p[-1] == ',') && (p[k] == ',' || p[k] == '\0')) {
            return;
        }
        p += k;
    }
    if (n + (n > 0) + k + 1 > len) {
        return;
    }
    snprintf(list + n, len - n, "%s%s", n > 0 ? "," : "", name);
}

static int is_nic(hwloc_obj_t o)
{
    return o->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK ||
           o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS;
}

static int is_gpu(hwloc_obj_t o)
{
    /* hwloc 2 names CUDA devices as co-processors and NVML/DRM ones as GPUs */
    return o->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU ||
           o->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC;
}

void sp_hwinfo_hwloc(sp_fp_rank_t *r)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t set;
    hwloc_obj_t o;
    const char *model = NULL;

    snprintf(r->cpuset, sizeof(r->cpuset), "unknown");
    snprintf(r->numa, sizeof(r->numa), "unknown");
    snprintf(r->nics_near, sizeof(r->nics_near), "unknown");
    snprintf(r->nics, sizeof(r->nics), "unknown");
    snprintf(r->gpus, sizeof(r->gpus), "unknown");
    if (hwloc_topology_init(&topo) != 0) {
        return;
    }
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    set = hwloc_bitmap_alloc();
    if (set == NULL || hwloc_topology_load(topo) != 0) {
        goto out;
    }
    if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) != 0) {
        /* not bound (or the OS cannot say): the whole machine */
        hwloc_bitmap_copy(set, hwloc_topology_get_topology_cpuset(topo));
    }
    hwloc_bitmap_list_snprintf(r->cpuset, sizeof(r->cpuset), set);
    r->numa[0] = '\0';
    for (o = NULL; (o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o)) != NULL;) {
        if (o->cpuset != NULL && hwloc_bitmap_intersects(o->cpuset, set)) {
            char id[16];
            snprintf(id, sizeof(id), "%u", o->os_index);
            list_add(r->numa, sizeof(r->numa), id);
        }
    }
    r->nics[0] = r->nics_near[0] = r->gpus[0] = '\0';
    for (o = NULL; (o = hwloc_get_next_osdev(topo, o)) != NULL;) {
        hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(topo, o);
        int near = anc != NULL && anc->cpuset != NULL && hwloc_bitmap_intersects(anc->cpuset, set);
        if (o->name == NULL) {
            continue;
        }
        if (is_nic(o)) {
            list_add(r->nics, sizeof(r->nics), o->name);
            /* a NIC hwloc attaches to the machine root is near everything: not informative */
            if (near && anc != hwloc_get_root_obj(topo)) {
                list_add(r->nics_near, sizeof(r->nics_near), o->name);
            }
        } else if (is_gpu(o)) {
            list_add(r->gpus, sizeof(r->gpus), o->name);
        }
    }
    /* no NIC local to the binding: the rank reaches the network through any of them */
    if (r->nics_near[0] == '\0') {
        snprintf(r->nics_near, sizeof(r->nics_near), "%s", r->nics);
    }
    if (r->nics[0] == '\0') {
        snprintf(r->nics, sizeof(r->nics), "none");
        snprintf(r->nics_near, sizeof(r->nics_near), "none");
    }
    if (r->gpus[0] == '\0') {
        snprintf(r->gpus, sizeof(r->gpus), "none");
    }
    o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, NULL);
    model = o != NULL ? hwloc_obj_get_info_by_name(o, "CPUModel") : NULL;
    if (model == NULL) {
        model = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), "CPUModel");
    }
    if (model != NULL && model[0] != '\0') {
        /* CPUID brand strings are padded with blanks */
        size_t n = strlen(model);
        while (n > 0 && model[n - 1] == ' ') {
            n--;
        }
        snprintf(r->cpu_model, sizeof(r->cpu_model), "%.*s", (int)n, model);
    }
out:
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(topo);
}

void sp_hwinfo_cpuinfo_model(const char *text, char *out, size_t len)
{
    const char *p = text;

    out[0] = '\0';
    while (p != NULL && *p != '\0') {
        if (strncmp(p, "model name", 10) == 0) {
            const char *v = strchr(p, ':');
            const char *end = strchr(p, '\n');
            size_t n;
            if (v != NULL && (end == NULL || v < end)) {
                v++;
                while (*v == ' ' || *v == '\t') {
                    v++;
                }
                n = end != NULL ? (size_t)(end - v) : strlen(v);
                while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r')) {
                    n--;
                }
                snprintf(out, len, "%.*s", (int)n, v);
                return;
            }
        }
        p = strchr(p, '\n');
        p = p != NULL ? p + 1 : NULL;
    }
}

void sp_hwinfo_cpu_model(sp_fp_rank_t *r)
{
    char text[8192];
    size_t n = 0;
    FILE *f;

    if (r->cpu_model[0] != '\0') {
        return;
    }
    f = fopen("/proc/cpuinfo", "r");
    if (f != NULL) {
        /* the first processor's block is enough */
        n = fread(text, 1, sizeof(text) - 1, f);
        fclose(f);
    }
    text[n] = '\0';
    sp_hwinfo_cpuinfo_model(text, r->cpu_model, sizeof(r->cpu_model));
    if (r->cpu_model[0] == '\0') {
        snprintf(r->cpu_model, sizeof(r->cpu_model), "unknown");
    }
}

/* ---- NVML (nvml.h) ---- */

/* The device CUDA would give this rank, by CUDA_VISIBLE_DEVICES (NVML numbers every GPU of the
 * node and ignores it): entry local_rank % entries of the list, an NVML index or a GPU UUID.
 * 0 when the variable is unset or the entry cannot be resolved (nothing is then recorded:
 * guessing would record another GPU's clocks). */
static int visible_device(const sp_nvml_t *api, int local_rank, sp_nvml_dev_t *dev)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    char list[256], *save = NULL, *tok;
    int n = 0, want;

    if (v == NULL || v[0] == '\0') {
        return 0;
    }
    snprintf(list, sizeof(list), "%s", v);
    for (tok = strtok_r(list, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        n++;
    }
    want = local_rank % (n > 0 ? n : 1);
    snprintf(list, sizeof(list), "%s", v);
    save = NULL;
    tok = strtok_r(list, ",", &save);
    for (int i = 0; tok != NULL && i < want; i++) {
        tok = strtok_r(NULL, ",", &save);
    }
    if (tok == NULL) {
        return 0;
    }
    if (strncmp(tok, "GPU-", 4) == 0 || strncmp(tok, "MIG-", 4) == 0) {
        return api->by_uuid != NULL && api->by_uuid(tok, dev) == SP_NVML_OK;
    }
    {
        char *end = NULL;
        long idx = strtol(tok, &end, 10);
        return end != tok && *end == '\0' && idx >= 0 &&
               api->by_index((unsigned)idx, dev) == SP_NVML_OK;
    }
}

static void nvml_device(const sp_nvml_t *api, sp_nvml_dev_t dev, sp_fp_rank_t *r)
{
    unsigned v = 0;
    int cur = 0, pending = 0;
    sp_nvml_pci_t pci;

    if (api->name != NULL) {
        api->name(dev, r->gpu_name, sizeof(r->gpu_name));
    }
    if (api->uuid != NULL) {
        api->uuid(dev, r->gpu_uuid, sizeof(r->gpu_uuid));
    }
    memset(&pci, 0, sizeof(pci));
    if (api->pci != NULL && api->pci(dev, &pci) == SP_NVML_OK) {
        snprintf(r->gpu_bus_id, sizeof(r->gpu_bus_id), "%08x:%02x:%02x.0", pci.domain, pci.bus,
                 pci.device);
    }
    /* application clocks are what a kernel runs at unless boosted; a GPU set lower shows here */
    if ((api->app_clock != NULL && api->app_clock(dev, SP_NVML_CLOCK_SM, &v) == SP_NVML_OK) ||
        (api->max_clock != NULL && api->max_clock(dev, SP_NVML_CLOCK_SM, &v) == SP_NVML_OK)) {
        r->sm_clock_mhz = (int)v;
    }
    if ((api->app_clock != NULL && api->app_clock(dev, SP_NVML_CLOCK_MEM, &v) == SP_NVML_OK) ||
        (api->max_clock != NULL && api->max_clock(dev, SP_NVML_CLOCK_MEM, &v) == SP_NVML_OK)) {
        r->mem_clock_mhz = (int)v;
    }
    /* what the device runs at now and why it is held lower (power cap, thermal, ...): a
     * throttled GPU shows here, not in the application clocks */
    if (api->clock != NULL && api->clock(dev, SP_NVML_CLOCK_SM, &v) == SP_NVML_OK) {
        r->sm_clock_now_mhz = (int)v;
    }
    if (api->clock != NULL && api->clock(dev, SP_NVML_CLOCK_MEM, &v) == SP_NVML_OK) {
        r->mem_clock_now_mhz = (int)v;
    }
    {
        unsigned long long reasons = 0;
        if (api->throttle != NULL && api->throttle(dev, &reasons) == SP_NVML_OK) {
            sp_gpu_throttle_str(reasons, r->throttle, sizeof(r->throttle));
        }
    }
    if (api->power_limit != NULL && api->power_limit(dev, &v) == SP_NVML_OK) {
        r->power_limit_w = (int)(v / 1000); /* NVML reports milliwatts */
    }
    if (api->ecc != NULL && api->ecc(dev, &cur, &pending) == SP_NVML_OK) {
        r->ecc = cur != 0;
    }
    if (api->nvlink_state != NULL) {
        int active = 0, any = 0;
        for (unsigned l = 0; l < SP_NVML_MAX_LINKS; l++) {
            int on = 0;
            if (api->nvlink_state(dev, l, &on) == SP_NVML_OK) {
                any = 1;
                active += on != 0;
            }
        }
        /* a GPU without NVLink answers "not supported" for every link: 0 active links */
        r->nvlinks = any ? active : 0;
    }
}

void sp_hwinfo_nvml(const char *bus_id, int local_rank, sp_fp_rank_t *r)
{
    sp_nvml_t api;
    sp_nvml_dev_t dev = NULL;
    unsigned count = 0;

    snprintf(r->gpu_source, sizeof(r->gpu_source), "none");
    if (!sp_nvml_open(&api, r->nvml, sizeof(r->nvml))) {
        return;
    }
    snprintf(r->nvml, sizeof(r->nvml), "ok");
    if (api.driver_version != NULL) {
        api.driver_version(r->driver, sizeof(r->driver));
    }
    if (r->cuda_driver[0] == '\0' && api.cuda_driver_version != NULL) {
        int v = 0;
        if (api.cuda_driver_version(&v) == SP_NVML_OK) {
            sp_gpu_cuda_version_str(v, r->cuda_driver, sizeof(r->cuda_driver));
        }
    }
    if (bus_id != NULL && bus_id[0] != '\0' && strcmp(bus_id, "-") != 0 && api.by_bus_id != NULL &&
        api.by_bus_id(bus_id, &dev) == SP_NVML_OK) {
        snprintf(r->gpu_source, sizeof(r->gpu_source), "backend");
    } else if (visible_device(&api, local_rank, &dev)) {
        snprintf(r->gpu_source, sizeof(r->gpu_source), "CUDA_VISIBLE_DEVICES");
    } else if (getenv("CUDA_VISIBLE_DEVICES") == NULL && api.count(&count) == SP_NVML_OK &&
               count > 0 && api.by_index((unsigned)local_rank % count, &dev) == SP_NVML_OK) {
        snprintf(r->gpu_source, sizeof(r->gpu_source), "local rank");
    } else {
        dev = NULL;
    }
    if (dev != NULL) {
        nvml_device(&api, dev, r);
    }
    sp_nvml_close(&api);
}

/* A symbol of a library this process has already loaded: first the global scope, then the
 * library by name without loading it (Open MPI opens its components with local scope). */
static void *loaded_sym(const char *const *libs, const char *sym)
{
    void *p = dlsym(RTLD_DEFAULT, sym);

    for (size_t i = 0; p == NULL && libs[i] != NULL; i++) {
        void *lib = dlopen(libs[i], RTLD_LAZY | RTLD_NOLOAD);
        if (lib != NULL) {
            p = dlsym(lib, sym);
            dlclose(lib); /* only drops the reference NOLOAD took */
        }
    }
    return p;
}

static int int_version(const char *const *libs, const char *sym, int *v)
{
    int (*fn)(int *) = NULL;

    void *p = loaded_sym(libs, sym);

    memcpy(&fn, &p, sizeof(p));
    return fn != NULL && fn(v) == 0;
}

void sp_hwinfo_libs(sp_fp_rank_t *r)
{
    static const char *const ucx_libs[] = {"libucp.so.0", "libucp.so", NULL};
    static const char *const nccl_libs[] = {"libnccl.so.2", "libnccl.so", NULL};
    static const char *const cudart_libs[] = {"libcudart.so.13", "libcudart.so.12",
                                              "libcudart.so.11.0", "libcudart.so", NULL};
    static const char *const cuda_libs[] = {"libcuda.so.1", "libcuda.so", NULL};
    const char *(*ucx)(void) = NULL;
    int v = 0;

    if (r->ucx[0] == '\0') {
        void *p = loaded_sym(ucx_libs, "ucp_get_version_string");
        memcpy(&ucx, &p, sizeof(p));
        snprintf(r->ucx, sizeof(r->ucx), "%s", ucx != NULL ? ucx() : "none");
    }
    if (r->nccl[0] == '\0') {
        if (int_version(nccl_libs, "ncclGetVersion", &v)) {
            sp_gpu_nccl_version_str(v, r->nccl, sizeof(r->nccl));
        } else {
            snprintf(r->nccl, sizeof(r->nccl), "none");
        }
    }
    if (r->cuda_runtime[0] == '\0') {
        if (int_version(cudart_libs, "cudaRuntimeGetVersion", &v)) {
            sp_gpu_cuda_version_str(v, r->cuda_runtime, sizeof(r->cuda_runtime));
        } else {
            snprintf(r->cuda_runtime, sizeof(r->cuda_runtime), "none");
        }
    }
    if (r->cuda_driver[0] == '\0') {
        /* the driver API's cuDriverGetVersion: loaded only where something uses CUDA */
        if (int_version(cuda_libs, "cuDriverGetVersion", &v)) {
            sp_gpu_cuda_version_str(v, r->cuda_driver, sizeof(r->cuda_driver));
        } else {
            snprintf(r->cuda_driver, sizeof(r->cuda_driver), "none");
        }
    }
}
