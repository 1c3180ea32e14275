/* The GPU half of the health signals: every GPU's NVML state, through the table of nvml.h. */
#include <stdio.h>
#include <string.h>

#include "health.h"
#include "nvml.h"

const sp_health_throttle_t sp_health_throttles[] = {
#define SP_HEALTH_THROTTLE_ROW(name, bit) {#name, bit},
    SP_HEALTH_THROTTLE_LIST(SP_HEALTH_THROTTLE_ROW)
#undef SP_HEALTH_THROTTLE_ROW
};
const int sp_health_nthrottles =
    (int)(sizeof(sp_health_throttles) / sizeof(sp_health_throttles[0]));

static long long ecc_count(const sp_nvml_t *api, sp_nvml_dev_t dev, int type, int counter)
{
    unsigned long long v = 0;

    if (api->ecc_total == NULL || api->ecc_total(dev, type, counter, &v) != SP_NVML_OK) {
        return -1;
    }
    return (long long)v;
}

static long long retired(const sp_nvml_t *api, sp_nvml_dev_t dev, int cause)
{
    unsigned n = 0;
    int rc;

    if (api->retired_pages == NULL) {
        return -1;
    }
    /* a zero-sized query answers the count (NVML: success, or "insufficient size" when pages
     * exist) */
    rc = api->retired_pages(dev, cause, &n, NULL);
    return rc == SP_NVML_OK || rc == SP_NVML_ERROR_INSUFFICIENT_SIZE ? (long long)n : -1;
}

static int uint_of(int (*fn)(sp_nvml_dev_t, unsigned *), sp_nvml_dev_t dev)
{
    unsigned v = 0;

    return fn != NULL && fn(dev, &v) == SP_NVML_OK ? (int)v : -1;
}

static void memory_health(const sp_nvml_t *api, sp_nvml_dev_t dev, sp_health_gpu_t *g)
{
    unsigned corr = 0, unc = 0, pending = 0, failed = 0;
    int on = 0;

    g->ecc_vol_corr = ecc_count(api, dev, SP_NVML_ECC_CORRECTED, SP_NVML_ECC_VOLATILE);
    g->ecc_vol_unc = ecc_count(api, dev, SP_NVML_ECC_UNCORRECTED, SP_NVML_ECC_VOLATILE);
    g->ecc_agg_corr = ecc_count(api, dev, SP_NVML_ECC_CORRECTED, SP_NVML_ECC_AGGREGATE);
    g->ecc_agg_unc = ecc_count(api, dev, SP_NVML_ECC_UNCORRECTED, SP_NVML_ECC_AGGREGATE);
    g->retired_sbe = retired(api, dev, SP_NVML_RETIRED_SBE);
    g->retired_dbe = retired(api, dev, SP_NVML_RETIRED_DBE);
    g->retired_pending = -1;
    if (api->retired_pending != NULL && api->retired_pending(dev, &on) == SP_NVML_OK) {
        g->retired_pending = on != 0;
    }
    g->remap_corr = g->remap_unc = g->remap_pending = g->remap_failed = -1;
    /* row remapping (A100 and later) replaces page retirement; older GPUs answer "not
     * supported" */
    if (api->remapped_rows != NULL &&
        api->remapped_rows(dev, &corr, &unc, &pending, &failed) == SP_NVML_OK) {
        g->remap_corr = (int)corr;
        g->remap_unc = (int)unc;
        g->remap_pending = pending != 0;
        g->remap_failed = failed != 0;
    }
}

static void clock_health(const sp_nvml_t *api, sp_nvml_dev_t dev, sp_health_gpu_t *g)
{
    unsigned v = 0;
    unsigned long long reasons = 0;

    g->sm_clock_mhz = g->mem_clock_mhz = g->sm_clock_max_mhz = g->temp_c = -1;
    g->power_w = -1.0;
    g->throttle = -1;
    if (api->clock != NULL && api->clock(dev, SP_NVML_CLOCK_SM, &v) == SP_NVML_OK) {
        g->sm_clock_mhz = (int)v;
    }
    if (api->clock != NULL && api->clock(dev, SP_NVML_CLOCK_MEM, &v) == SP_NVML_OK) {
        g->mem_clock_mhz = (int)v;
    }
    if (api->max_clock != NULL && api->max_clock(dev, SP_NVML_CLOCK_SM, &v) == SP_NVML_OK) {
        g->sm_clock_max_mhz = (int)v;
    }
    if (api->throttle != NULL && api->throttle(dev, &reasons) == SP_NVML_OK) {
        g->throttle = (long long)reasons;
    }
    if (api->temperature != NULL && api->temperature(dev, SP_NVML_TEMP_GPU, &v) == SP_NVML_OK) {
        g->temp_c = (int)v;
    }
    if (api->power_usage != NULL && api->power_usage(dev, &v) == SP_NVML_OK) {
        g->power_w = v / 1000.0; /* milliwatts */
    }
}

static void link_health(const sp_nvml_t *api, sp_nvml_dev_t dev, sp_health_gpu_t *g)
{
    g->pcie_gen = uint_of(api->pcie_gen, dev);
    g->pcie_width = uint_of(api->pcie_width, dev);
    g->pcie_gen_max = uint_of(api->pcie_gen_max, dev);
    g->pcie_width_max = uint_of(api->pcie_width_max, dev);
    g->nvlink_active = g->nvlink_total = 0;
    for (unsigned l = 0; api->nvlink_state != NULL && l < SP_NVML_MAX_LINKS; l++) {
        int on = 0;
        /* a link the GPU does not have answers "not supported" */
        if (api->nvlink_state(dev, l, &on) == SP_NVML_OK) {
            g->nvlink_total++;
            g->nvlink_active += on != 0;
        }
    }
}

void sp_health_read_gpus(sp_health_node_t *h)
{
    sp_nvml_t api;
    unsigned count = 0;

    h->ngpus = -1;
    if (!sp_nvml_open(&api, h->nvml, sizeof(h->nvml))) {
        return;
    }
    snprintf(h->nvml, sizeof(h->nvml), "ok");
    if (api.count(&count) != SP_NVML_OK) {
        snprintf(h->nvml, sizeof(h->nvml), "nvmlDeviceGetCount failed");
        sp_nvml_close(&api);
        return;
    }
    h->ngpus = 0;
    h->nvml_count = (int)count;
    for (unsigned i = 0; i < count && h->ngpus < SP_HEALTH_MAX_GPUS; i++) {
        sp_health_gpu_t *g = &h->gpu[h->ngpus];
        sp_nvml_dev_t dev = NULL;
        sp_nvml_pci_t pci;

        if (api.by_index(i, &dev) != SP_NVML_OK) {
            continue; /* counted as missing by gpu_count: NVML lists it but cannot open it */
        }
        memset(g, 0, sizeof(*g));
        g->index = (int)i;
        if (api.name == NULL || api.name(dev, g->name, sizeof(g->name)) != SP_NVML_OK) {
            snprintf(g->name, sizeof(g->name), "unknown");
        }
        memset(&pci, 0, sizeof(pci));
        if (api.pci != NULL && api.pci(dev, &pci) == SP_NVML_OK) {
            snprintf(g->bus_id, sizeof(g->bus_id), "%08x:%02x:%02x.0", pci.domain, pci.bus,
                     pci.device);
        }
        memory_health(&api, dev, g);
        clock_health(&api, dev, g);
        link_health(&api, dev, g);
        h->ngpus++;
    }
    sp_nvml_close(&api);
}
