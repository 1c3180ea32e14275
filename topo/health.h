/* Health signals of one node, read without MPI: every GPU's NVML state (ECC counters, retired
 * pages, row remapping, clocks and throttle reasons, temperature, power, PCIe link, NVLink),
 * the kernel log's NVIDIA Xid events, InfiniBand/RoCE ports from sysfs (state, rate, error
 * counters), the CPU frequency governor and the memory size. Fixed-size plain structs, so a
 * node's record travels to rank 0 as bytes. What cannot be read is recorded, never hidden. */
#ifndef SP_HEALTH_H
#define SP_HEALTH_H

#include <stddef.h>

#define SP_HEALTH_MAX_GPUS 16
#define SP_HEALTH_MAX_PORTS 16
#define SP_HEALTH_MAX_XIDS 16

/* The IB port counters read before and after the run and differenced. */
#define SP_HEALTH_IB_COUNTERS(X)                                                                   \
    X(symbol_error)                                                                                \
    X(link_downed)                                                                                 \
    X(link_error_recovery)                                                                         \
    X(port_rcv_errors)                                                                             \
    X(local_link_integrity_errors)                                                                 \
    X(excessive_buffer_overrun_errors)

enum {
#define SP_HEALTH_IB_ENUM(name) SP_IB_##name,
    SP_HEALTH_IB_COUNTERS(SP_HEALTH_IB_ENUM)
#undef SP_HEALTH_IB_ENUM
        SP_IB_NCOUNTERS
};

extern const char *const sp_health_ib_counter_names[SP_IB_NCOUNTERS];

/* NVML throttle ("clocks event") reason bits, named as the spec names them. */
#define SP_HEALTH_THROTTLE_LIST(X)                                                                 \
    X(gpu_idle, 0x1ULL)                                                                            \
    X(applications_clocks, 0x2ULL)                                                                 \
    X(sw_power_cap, 0x4ULL)                                                                        \
    X(hw_slowdown, 0x8ULL)                                                                         \
    X(sync_boost, 0x10ULL)                                                                         \
    X(sw_thermal, 0x20ULL)                                                                         \
    X(hw_thermal, 0x40ULL)                                                                         \
    X(hw_power_brake, 0x80ULL)                                                                     \
    X(display_clocks, 0x100ULL)

typedef struct {
    const char *name;
    unsigned long long bit;
} sp_health_throttle_t;

extern const sp_health_throttle_t sp_health_throttles[];
extern const int sp_health_nthrottles;

/* One GPU; -1 in a field: NVML could not say (not supported or failed). */
typedef struct {
    int index;
    char name[64];
    char bus_id[32];
    long long ecc_vol_corr, ecc_vol_unc, ecc_agg_corr, ecc_agg_unc;
    long long retired_sbe, retired_dbe;
    int retired_pending;
    int remap_corr, remap_unc, remap_pending, remap_failed;
    int sm_clock_mhz, mem_clock_mhz, sm_clock_max_mhz;
    long long throttle; /* reason bits; -1 unknown */
    int temp_c;
    double power_w;
    int pcie_gen, pcie_width, pcie_gen_max, pcie_width_max;
    int nvlink_active, nvlink_total; /* links answering, and of them active */
} sp_health_gpu_t;

typedef struct {
    char dev[32];
    int port;
    char state[24];      /* "ACTIVE" from "4: ACTIVE" */
    char phys_state[24]; /* "LinkUp" from "5: LinkUp" */
    char link_layer[16]; /* "InfiniBand", "Ethernet" (RoCE) */
    double rate_gbps;
    long long before[SP_IB_NCOUNTERS]; /* -1: not readable */
    long long after[SP_IB_NCOUNTERS];
} sp_health_port_t;

typedef struct {
    int code;
    char line[160];
} sp_health_xid_t;

typedef struct {
    char host[64];
    char nvml[48];  /* "ok" or why not ("absent" on a machine without the driver) */
    int ngpus;      /* GPUs opened; -1: NVML not available */
    int nvml_count; /* GPUs NVML lists (one it lists but cannot open is missing) */
    sp_health_gpu_t gpu[SP_HEALTH_MAX_GPUS];
    char ib_source[96]; /* the directory read, or why not */
    int nports;
    sp_health_port_t port[SP_HEALTH_MAX_PORTS];
    char xid_source[160]; /* "/dev/kmsg" or "cannot read /dev/kmsg: Permission denied" */
    int xid_readable;
    int nxids; /* events found (those kept: at most SP_HEALTH_MAX_XIDS) */
    sp_health_xid_t xid[SP_HEALTH_MAX_XIDS];
    char governor[32]; /* "performance", "mixed(performance,powersave)", "unknown" */
    double mem_gib;
} sp_health_node_t;

/* Where a node's health is read from: the defaults are the real system's. */
typedef struct {
    char sys_root[256];   /* "/sys": class/infiniband, devices/system/cpu below it */
    char kernel_log[256]; /* "/dev/kmsg" (records) or a text file of kernel log lines */
} sp_health_src_t;

/* Every GPU NVML sees (libnvidia-ml.so.1 by dlopen). */
void sp_health_read_gpus(sp_health_node_t *h);

/* Host part: ports (state, rate, counters into before), Xid events, governor, memory. */
void sp_health_read_host(const sp_health_src_t *src, sp_health_node_t *h);

/* The port counters again, into after (ports matched by device and port). */
void sp_health_read_ports_after(const sp_health_src_t *src, sp_health_node_t *h);

/* The Xid code of a kernel log line ("NVRM: Xid (PCI:0000:3b:00): 79, pid=..."); -1 when the
 * line is not an Xid event. Pure. */
int sp_health_parse_xid(const char *line);

#endif
