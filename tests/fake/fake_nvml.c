/* A fake libnvidia-ml.so.1 for the tests: exports the NVML functions scaleprobe calls, with
 * values from the environment variable SP_FAKE_NVML, a ';'-separated list of settings:
 *   gpus=N            GPUs listed (default 8)
 *   name=TEXT         every GPU's name (default "NVIDIA H100 80GB HBM3")
 *   init=fail         nvmlInit fails (a driver that does not answer)
 *   gpuI.FIELD=VALUE  one GPU's value; *.FIELD=VALUE every GPU's
 * FIELDs: ecc_vol_corr ecc_vol_unc ecc_agg_corr ecc_agg_unc retired_sbe retired_dbe
 * retired_pending remap_corr remap_unc remap_pending remap_failed sm_clock mem_clock
 * sm_clock_max throttle (hex or decimal bits) temp power_mw pcie_gen pcie_width nvlinks
 * (active of 18), missing (1: its handle cannot be opened). Every unset value is a healthy
 * H100's. A handle is the GPU's index + 1; no state is kept between calls. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELDS(X)                                                                                  \
    X(ecc_vol_corr, 0)                                                                             \
    X(ecc_vol_unc, 0) X(ecc_agg_corr, 0) X(ecc_agg_unc, 0) X(retired_sbe, 0) X(retired_dbe, 0)     \
        X(retired_pending, 0) X(remap_corr, 0) X(remap_unc, 0) X(remap_pending, 0)                 \
            X(remap_failed, 0) X(sm_clock, 1980) X(mem_clock, 2619) X(sm_clock_max, 1980)          \
                X(throttle, 0) X(temp, 41) X(power_mw, 115000) X(pcie_gen, 5) X(pcie_width, 16)    \
                    X(nvlinks, 18) X(missing, 0)

typedef struct {
#define F_MEMBER(name, def) unsigned long long name;
    FIELDS(F_MEMBER)
#undef F_MEMBER
} gpu_t;

enum { OK = 0, ERR_INVALID = 2, ERR_NOT_SUPPORTED = 3, ERR_UNKNOWN = 999 };

static const char *setting(const char *key, char *out, size_t len)
{
    const char *env = getenv("SP_FAKE_NVML");
    size_t k = strlen(key);

    for (const char *p = env; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ';');
        size_t n = end != NULL ? (size_t)(end - p) : strlen(p);
        if (n > k && strncmp(p, key, k) == 0 && p[k] == '=') {
            size_t v = n - k - 1 < len - 1 ? n - k - 1 : len - 1;
            memcpy(out, p + k + 1, v);
            out[v] = '\0';
            return out;
        }
        p = end != NULL ? end + 1 : p + n;
    }
    return NULL;
}

static unsigned ngpus(void)
{
    char v[32];

    return setting("gpus", v, sizeof(v)) != NULL ? (unsigned)strtoul(v, NULL, 0) : 8u;
}

static void field(const char *name, unsigned idx, unsigned long long *out)
{
    char key[64], v[64];

    snprintf(key, sizeof(key), "*.%s", name);
    if (setting(key, v, sizeof(v)) != NULL) {
        *out = strtoull(v, NULL, 0);
    }
    snprintf(key, sizeof(key), "gpu%u.%s", idx, name);
    if (setting(key, v, sizeof(v)) != NULL) {
        *out = strtoull(v, NULL, 0);
    }
}

static int gpu_of(void *dev, gpu_t *g, unsigned *idx_p)
{
    uintptr_t h = (uintptr_t)dev;

    if (h == 0 || h > ngpus()) {
        return 0;
    }
#define F_SET(name, def)                                                                           \
    g->name = def;                                                                                 \
    field(#name, (unsigned)(h - 1), &g->name);
    FIELDS(F_SET)
#undef F_SET
    if (idx_p != NULL) {
        *idx_p = (unsigned)(h - 1);
    }
    return 1;
}

int nvmlInit_v2(void);
int nvmlShutdown(void);
const char *nvmlErrorString(int rc);
int nvmlSystemGetDriverVersion(char *v, unsigned len);
int nvmlDeviceGetCount_v2(unsigned *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **dev);
int nvmlDeviceGetName(void *dev, char *name, unsigned len);
int nvmlDeviceGetPciInfo_v3(void *dev, void *pci);
int nvmlDeviceGetTotalEccErrors(void *dev, int type, int counter, unsigned long long *v);
int nvmlDeviceGetRetiredPages(void *dev, int cause, unsigned *n, unsigned long long *addr);
int nvmlDeviceGetRetiredPagesPendingStatus(void *dev, int *pending);
int nvmlDeviceGetRemappedRows(void *dev, unsigned *c, unsigned *u, unsigned *p, unsigned *f);
int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *v);
int nvmlDeviceGetMaxClockInfo(void *dev, int type, unsigned *v);
int nvmlDeviceGetCurrentClocksThrottleReasons(void *dev, unsigned long long *v);
int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned *v);
int nvmlDeviceGetPowerUsage(void *dev, unsigned *v);
int nvmlDeviceGetCurrPcieLinkGeneration(void *dev, unsigned *v);
int nvmlDeviceGetCurrPcieLinkWidth(void *dev, unsigned *v);
int nvmlDeviceGetMaxPcieLinkGeneration(void *dev, unsigned *v);
int nvmlDeviceGetMaxPcieLinkWidth(void *dev, unsigned *v);
int nvmlDeviceGetNvLinkState(void *dev, unsigned link, int *on);

int nvmlInit_v2(void)
{
    char v[16];

    return setting("init", v, sizeof(v)) != NULL && strcmp(v, "fail") == 0 ? ERR_UNKNOWN : OK;
}

int nvmlShutdown(void)
{
    return OK;
}

const char *nvmlErrorString(int rc)
{
    return rc == ERR_UNKNOWN ? "Unknown Error (fake)" : "fake error";
}

int nvmlSystemGetDriverVersion(char *v, unsigned len)
{
    snprintf(v, len, "570.00-fake");
    return OK;
}

int nvmlDeviceGetCount_v2(unsigned *n)
{
    *n = ngpus();
    return OK;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **dev)
{
    gpu_t g;

    if (!gpu_of((void *)(uintptr_t)(i + 1), &g, NULL) || g.missing) {
        return ERR_INVALID;
    }
    *dev = (void *)(uintptr_t)(i + 1);
    return OK;
}

int nvmlDeviceGetName(void *dev, char *name, unsigned len)
{
    char v[96];

    snprintf(name, len, "%s", setting("name", v, sizeof(v)) != NULL ? v : "NVIDIA H100 80GB HBM3");
    return dev != NULL ? OK : ERR_INVALID;
}

int nvmlDeviceGetPciInfo_v3(void *dev, void *pci)
{
    /* nvmlPciInfo_t: char[16], then domain, bus, device, ids; then char[32] */
    unsigned idx = 0;
    gpu_t g;
    unsigned *u = (unsigned *)((char *)pci + 16);

    if (!gpu_of(dev, &g, &idx)) {
        return ERR_INVALID;
    }
    memset(pci, 0, 16 + 5 * sizeof(unsigned) + 32);
    u[1] = 0x18 + idx * 0x10;
    return OK;
}

#define GETTER(fn, fieldname)                                                                      \
    int fn(void *dev, unsigned *v)                                                                 \
    {                                                                                              \
        gpu_t g;                                                                                   \
        if (!gpu_of(dev, &g, NULL)) {                                                              \
            return ERR_INVALID;                                                                    \
        }                                                                                          \
        *v = (unsigned)g.fieldname;                                                                \
        return OK;                                                                                 \
    }
GETTER(nvmlDeviceGetPowerUsage, power_mw)
GETTER(nvmlDeviceGetCurrPcieLinkGeneration, pcie_gen)
GETTER(nvmlDeviceGetCurrPcieLinkWidth, pcie_width)
GETTER(nvmlDeviceGetMaxPcieLinkGeneration, pcie_gen)
GETTER(nvmlDeviceGetMaxPcieLinkWidth, pcie_width)

int nvmlDeviceGetTotalEccErrors(void *dev, int type, int counter, unsigned long long *v)
{
    gpu_t g;

    if (!gpu_of(dev, &g, NULL)) {
        return ERR_INVALID;
    }
    *v = type == 1 ? (counter == 0 ? g.ecc_vol_unc : g.ecc_agg_unc)
                   : (counter == 0 ? g.ecc_vol_corr : g.ecc_agg_corr);
    return OK;
}

int nvmlDeviceGetRetiredPages(void *dev, int cause, unsigned *n, unsigned long long *addr)
{
    gpu_t g;
    unsigned have;

    if (!gpu_of(dev, &g, NULL)) {
        return ERR_INVALID;
    }
    have = (unsigned)(cause == 0 ? g.retired_sbe : g.retired_dbe);
    (void)addr;
    if (*n < have) {
        *n = have;
        return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    }
    *n = have;
    return OK;
}

int nvmlDeviceGetRetiredPagesPendingStatus(void *dev, int *pending)
{
    gpu_t g;

    if (!gpu_of(dev, &g, NULL)) {
        return ERR_INVALID;
    }
    *pending = (int)g.retired_pending;
    return OK;
}

int nvmlDeviceGetRemappedRows(void *dev, unsigned *c, unsigned *u, unsigned *p, unsigned *f)
{
    gpu_t g;

    if (!gpu_of(dev, &g, NULL)) {
        return ERR_INVALID;
    }
    *c = (unsigned)g.remap_corr;
    *u = (unsigned)g.remap_unc;
    *p = (unsigned)g.remap_pending;
    *f = (unsigned)g.remap_failed;
    return OK;
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *v)
{
    gpu_t g;

    if (!gpu_of(dev, &g, NULL)) {
        return ERR_INVALID;
    }
    *v = (unsigned)(type == 1 ? g.sm_clock : g.mem_clock);
    return OK;
}

int nvmlDeviceGetMaxClockInfo(void *dev, int type, unsigned *v)
{
    gpu_t g;

    if (!gpu_of(dev, &g, NULL)) {
        return ERR_INVALID;
    }
    *v = (unsigned)(type == 1 ? g.sm_clock_max : g.mem_clock);
    return OK;
}

int nvmlDeviceGetCurrentClocksThrottleReasons(void *dev, unsigned long long *v)
{
    gpu_t g;

    if (!gpu_of(dev, &g, NULL)) {
        return ERR_INVALID;
    }
    *v = g.throttle;
    return OK;
}

int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned *v)
{
    gpu_t g;

    if (!gpu_of(dev, &g, NULL) || sensor != 0) {
        return ERR_INVALID;
    }
    *v = (unsigned)g.temp;
    return OK;
}

int nvmlDeviceGetNvLinkState(void *dev, unsigned link, int *on)
{
    gpu_t g;

    if (!gpu_of(dev, &g, NULL)) {
        return ERR_INVALID;
    }
    if (link >= 18) {
        return ERR_NOT_SUPPORTED;
    }
    *on = link < g.nvlinks;
    return OK;
}
