/* NVML loaded at run time (dlopen("libnvidia-ml.so.1")): the one table of the NVML functions
 * scaleprobe calls, shared by the fingerprint (hwinfo.c) and the health checks (health_gpu.c).
 * Its header is not needed to build; the few types used are declared here with NVML's layout. */
#ifndef SP_NVML_H
#define SP_NVML_H

#include <stddef.h>

typedef void *sp_nvml_dev_t;

typedef struct {
    char bus_id_legacy[16];
    unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} sp_nvml_pci_t; /* nvmlPciInfo_t */

enum {
    SP_NVML_OK = 0,
    SP_NVML_ERROR_NOT_SUPPORTED = 3,
    SP_NVML_ERROR_INSUFFICIENT_SIZE = 7,
    SP_NVML_CLOCK_SM = 1,
    SP_NVML_CLOCK_MEM = 2,
    SP_NVML_MAX_LINKS = 18,
    SP_NVML_TEMP_GPU = 0,
    SP_NVML_ECC_CORRECTED = 0, /* nvmlMemoryErrorType_t */
    SP_NVML_ECC_UNCORRECTED = 1,
    SP_NVML_ECC_VOLATILE = 0, /* nvmlEccCounterType_t */
    SP_NVML_ECC_AGGREGATE = 1,
    SP_NVML_RETIRED_SBE = 0, /* nvmlPageRetirementCause_t: multiple single-bit errors */
    SP_NVML_RETIRED_DBE = 1  /* a double-bit error */
};

/* Every entry is NULL when the library lacks the symbol (an older driver). */
typedef struct {
    void *lib;
    int (*init)(void);
    int (*shutdown)(void);
    const char *(*error_string)(int);
    int (*driver_version)(char *, unsigned);
    int (*cuda_driver_version)(int *);
    int (*count)(unsigned *);
    int (*by_index)(unsigned, sp_nvml_dev_t *);
    int (*by_bus_id)(const char *, sp_nvml_dev_t *);
    int (*by_uuid)(const char *, sp_nvml_dev_t *);
    int (*name)(sp_nvml_dev_t, char *, unsigned);
    int (*uuid)(sp_nvml_dev_t, char *, unsigned);
    int (*pci)(sp_nvml_dev_t, sp_nvml_pci_t *);
    int (*app_clock)(sp_nvml_dev_t, int, unsigned *);
    int (*max_clock)(sp_nvml_dev_t, int, unsigned *);
    int (*power_limit)(sp_nvml_dev_t, unsigned *);
    int (*ecc)(sp_nvml_dev_t, int *, int *);
    int (*nvlink_state)(sp_nvml_dev_t, unsigned, int *);
    /* health (health_gpu.c) */
    int (*ecc_total)(sp_nvml_dev_t, int, int, unsigned long long *);
    int (*retired_pages)(sp_nvml_dev_t, int, unsigned *, unsigned long long *);
    int (*retired_pending)(sp_nvml_dev_t, int *);
    int (*remapped_rows)(sp_nvml_dev_t, unsigned *, unsigned *, unsigned *, unsigned *);
    int (*clock)(sp_nvml_dev_t, int, unsigned *);
    int (*throttle)(sp_nvml_dev_t, unsigned long long *);
    int (*temperature)(sp_nvml_dev_t, int, unsigned *);
    int (*power_usage)(sp_nvml_dev_t, unsigned *);
    int (*pcie_gen)(sp_nvml_dev_t, unsigned *);
    int (*pcie_width)(sp_nvml_dev_t, unsigned *);
    int (*pcie_gen_max)(sp_nvml_dev_t, unsigned *);
    int (*pcie_width_max)(sp_nvml_dev_t, unsigned *);
} sp_nvml_t;

/* Load libnvidia-ml.so.1 (the dynamic linker's search: LD_LIBRARY_PATH first, which is how the
 * tests put a fake library in its place) and call nvmlInit. 1 on success; 0 with why (at most
 * len bytes: "absent", "absent (incomplete library)" or NVML's error) and nothing held. */
int sp_nvml_open(sp_nvml_t *api, char *why, size_t len);

/* nvmlShutdown and dlclose; api may have failed to open (then nothing is done). */
void sp_nvml_close(sp_nvml_t *api);

#endif
