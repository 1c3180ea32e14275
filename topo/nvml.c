/* NVML through dlopen/dlsym: one table for every caller (nvml.h). */
#include "nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Store symbol sym of lib (NULL when missing) into the function pointer at fn_p: POSIX lets
 * dlsym's object pointer stand for a function; memcpy keeps the conversion free of aliasing. */
static void sym_load(void *lib, const char *sym, void *fn_p)
{
    void *p = dlsym(lib, sym);

    memcpy(fn_p, &p, sizeof(p));
}

static int nvml_load(void *lib, sp_nvml_t *api)
{
    memset(api, 0, sizeof(*api));
    sym_load(lib, "nvmlInit_v2", &api->init);
    sym_load(lib, "nvmlShutdown", &api->shutdown);
    sym_load(lib, "nvmlErrorString", &api->error_string);
    sym_load(lib, "nvmlSystemGetDriverVersion", &api->driver_version);
    sym_load(lib, "nvmlSystemGetCudaDriverVersion", &api->cuda_driver_version);
    sym_load(lib, "nvmlDeviceGetCount_v2", &api->count);
    sym_load(lib, "nvmlDeviceGetHandleByIndex_v2", &api->by_index);
    sym_load(lib, "nvmlDeviceGetHandleByPciBusId_v2", &api->by_bus_id);
    sym_load(lib, "nvmlDeviceGetHandleByUUID", &api->by_uuid);
    sym_load(lib, "nvmlDeviceGetName", &api->name);
    sym_load(lib, "nvmlDeviceGetUUID", &api->uuid);
    sym_load(lib, "nvmlDeviceGetPciInfo_v3", &api->pci);
    sym_load(lib, "nvmlDeviceGetApplicationsClock", &api->app_clock);
    sym_load(lib, "nvmlDeviceGetMaxClockInfo", &api->max_clock);
    sym_load(lib, "nvmlDeviceGetEnforcedPowerLimit", &api->power_limit);
    sym_load(lib, "nvmlDeviceGetEccMode", &api->ecc);
    sym_load(lib, "nvmlDeviceGetNvLinkState", &api->nvlink_state);
    sym_load(lib, "nvmlDeviceGetTotalEccErrors", &api->ecc_total);
    sym_load(lib, "nvmlDeviceGetRetiredPages", &api->retired_pages);
    sym_load(lib, "nvmlDeviceGetRetiredPagesPendingStatus", &api->retired_pending);
    sym_load(lib, "nvmlDeviceGetRemappedRows", &api->remapped_rows);
    sym_load(lib, "nvmlDeviceGetClockInfo", &api->clock);
    /* renamed "clocks event reasons" in newer drivers; the old name is still exported */
    sym_load(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", &api->throttle);
    if (api->throttle == NULL) {
        sym_load(lib, "nvmlDeviceGetCurrentClocksEventReasons", &api->throttle);
    }
    sym_load(lib, "nvmlDeviceGetTemperature", &api->temperature);
    sym_load(lib, "nvmlDeviceGetPowerUsage", &api->power_usage);
    sym_load(lib, "nvmlDeviceGetCurrPcieLinkGeneration", &api->pcie_gen);
    sym_load(lib, "nvmlDeviceGetCurrPcieLinkWidth", &api->pcie_width);
    sym_load(lib, "nvmlDeviceGetMaxPcieLinkGeneration", &api->pcie_gen_max);
    sym_load(lib, "nvmlDeviceGetMaxPcieLinkWidth", &api->pcie_width_max);
    /* the few every query needs; the rest are optional per property */
    return api->init != NULL && api->shutdown != NULL && api->count != NULL &&
           api->by_index != NULL;
}

int sp_nvml_open(sp_nvml_t *api, char *why, size_t len)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    int rc;

    memset(api, 0, sizeof(*api));
    if (lib == NULL) {
        snprintf(why, len, "absent");
        return 0;
    }
    if (!nvml_load(lib, api)) {
        snprintf(why, len, "absent (incomplete library)");
        memset(api, 0, sizeof(*api));
        dlclose(lib);
        return 0;
    }
    rc = api->init();
    if (rc != SP_NVML_OK) {
        snprintf(why, len, "%s",
                 api->error_string != NULL ? api->error_string(rc) : "nvmlInit failed");
        memset(api, 0, sizeof(*api));
        dlclose(lib);
        return 0;
    }
    api->lib = lib;
    return 1;
}

void sp_nvml_close(sp_nvml_t *api)
{
    if (api->lib == NULL) {
        return;
    }
    api->shutdown();
    dlclose(api->lib);
    memset(api, 0, sizeof(*api));
}
