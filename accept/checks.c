/* The check registry: one row per check. A row names what the check reads, its parameters and
 * their types (the spec parser validates against them) and its evaluation. */
#include "checks.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "options.h"
#include "proxy_args.h"

const char *const sp_verdict_names[4] = {"PASS", "N/A", "WARN", "FAIL"};

#define MAX_P(help)                                                                                \
    {                                                                                              \
        "max", SP_PARAM_NUM, 1, help                                                               \
    }
/* a floor at a percentage of the baseline's median for the node type (--baseline FILE) */
#define BASE_P                                                                                     \
    {                                                                                              \
        "baseline_pct", SP_PARAM_NUM, 1, "floor: percent of the baseline median"                   \
    }
#define MIN_P(help)                                                                                \
    {                                                                                              \
        "min", SP_PARAM_NUM, 1, help                                                               \
    }

static double g_ecc_vu(const sp_health_gpu_t *g)
{
    return (double)g->ecc_vol_unc;
}
static double g_ecc_au(const sp_health_gpu_t *g)
{
    return (double)g->ecc_agg_unc;
}
static double g_ecc_vc(const sp_health_gpu_t *g)
{
    return (double)g->ecc_vol_corr;
}
static double g_ecc_ac(const sp_health_gpu_t *g)
{
    return (double)g->ecc_agg_corr;
}
static double g_retired(const sp_health_gpu_t *g)
{
    return g->retired_sbe < 0 || g->retired_dbe < 0 ? -1.0
                                                    : (double)(g->retired_sbe + g->retired_dbe);
}
static double g_retired_pending(const sp_health_gpu_t *g)
{
    return g->retired_pending;
}
static double g_remap_pending(const sp_health_gpu_t *g)
{
    return g->remap_pending;
}
static double g_remap_failed(const sp_health_gpu_t *g)
{
    return g->remap_failed;
}
static double g_remap_unc(const sp_health_gpu_t *g)
{
    return g->remap_unc;
}
static double g_temp(const sp_health_gpu_t *g)
{
    return g->temp_c;
}
static double g_power(const sp_health_gpu_t *g)
{
    return g->power_w;
}
static double g_sm_clock(const sp_health_gpu_t *g)
{
    return g->sm_clock_mhz;
}
static double g_sm_clock_max(const sp_health_gpu_t *g)
{
    return g->sm_clock_max_mhz;
}
static double g_pcie_gen(const sp_health_gpu_t *g)
{
    return g->pcie_gen;
}
static double g_pcie_width(const sp_health_gpu_t *g)
{
    return g->pcie_width;
}
static double g_nvlink(const sp_health_gpu_t *g)
{
    return g->nvlink_total > 0 ? g->nvlink_active : -1.0;
}

#define GPU_ROW(name, getter, param, help)                                                         \
    {                                                                                              \
        name, "gpu", help, {param}, sp__check_gpu_numeric, NULL, getter                            \
    }

const sp_check_def_t sp_check_defs[] = {
    {"gpu_count",
     "gpu",
     "GPUs NVML sees; a missing GPU fails",
     {{"expect", SP_PARAM_NUM, 1, "exact count"}},
     sp__check_gpu_count,
     NULL,
     NULL},
    GPU_ROW("ecc_volatile_uncorrected", g_ecc_vu, MAX_P("errors per GPU"),
            "uncorrected ECC errors since the driver loaded"),
    GPU_ROW("ecc_aggregate_uncorrected", g_ecc_au, MAX_P("errors per GPU"),
            "uncorrected ECC errors over the GPU's life"),
    GPU_ROW("ecc_volatile_corrected", g_ecc_vc, MAX_P("errors per GPU"),
            "corrected ECC errors since the driver loaded"),
    GPU_ROW("ecc_aggregate_corrected", g_ecc_ac, MAX_P("errors per GPU"),
            "corrected ECC errors over the GPU's life"),
    GPU_ROW("retired_pages", g_retired, MAX_P("pages per GPU"),
            "retired pages (single- and double-bit causes; pre-A100 GPUs)"),
    GPU_ROW("retired_pages_pending", g_retired_pending, MAX_P("0: none may be pending"),
            "a page retirement waiting for a reboot"),
    GPU_ROW("row_remap_pending", g_remap_pending, MAX_P("0: none may be pending"),
            "a row remapping waiting for a GPU reset (A100 and later)"),
    GPU_ROW("row_remap_failed", g_remap_failed, MAX_P("0: none may have failed"),
            "a row remapping that failed: the GPU needs service"),
    GPU_ROW("row_remap_uncorrectable", g_remap_unc, MAX_P("rows per GPU"),
            "rows remapped after uncorrectable errors"),
    GPU_ROW("gpu_temperature_c", g_temp, MAX_P("degrees C"), "GPU core temperature"),
    GPU_ROW("gpu_power_w", g_power, MAX_P("watts"), "power draw"),
    GPU_ROW("sm_clock_mhz", g_sm_clock, MIN_P("MHz"),
            "current SM clock (an idle GPU clocks down: judge it after a load)"),
    GPU_ROW("sm_clock_max_mhz", g_sm_clock_max, MIN_P("MHz"),
            "the GPU's maximum SM clock (a capped GPU shows here)"),
    GPU_ROW("pcie_gen", g_pcie_gen, MIN_P("generation"),
            "current PCIe link generation (may drop at idle to save power)"),
    GPU_ROW("pcie_width", g_pcie_width, MIN_P("lanes"), "current PCIe link width"),
    GPU_ROW("nvlink_active", g_nvlink, MIN_P("links per GPU"), "NVLinks up per GPU"),
    {"throttle_reasons",
     "gpu",
     "current clock throttle reasons",
     {{"fail", SP_PARAM_NAMES, 1, "reasons that fail"},
      {"warn", SP_PARAM_NAMES, 1, "reasons that warn"}},
     sp__check_throttle,
     NULL,
     NULL},
    {"memory_gib", "host", "the node's memory", {MIN_P("GiB")}, sp__check_memory, NULL, NULL},
    {"cpu_governor",
     "host",
     "CPU frequency governor of every CPU",
     {{"expect", SP_PARAM_NAMES, 1, "allowed governors"}},
     sp__check_governor,
     NULL,
     NULL},
    {"ib_ports_active",
     "host",
     "InfiniBand/RoCE ports ACTIVE and LinkUp",
     {MIN_P("ports")},
     sp__check_ib_ports,
     NULL,
     NULL},
    {"ib_rate_gbps",
     "host",
     "rate of every active port",
     {MIN_P("Gb/s")},
     sp__check_ib_rate,
     NULL,
     NULL},
    {"ib_error_counters",
     "host",
     "port error counters' growth during the run",
     {{"max_delta", SP_PARAM_NUM, 1, "growth per counter and port"},
      {"counters", SP_PARAM_NAMES, 0, "which (default: all read)"}},
     sp__check_ib_counters,
     NULL,
     NULL},
    {"xid",
     "host",
     "NVIDIA Xid events in the kernel log",
     {{"fail", SP_PARAM_NUMS, 1, "codes that fail"},
      {"warn_unlisted", SP_PARAM_BOOL, 0, "other codes warn (default true)"}},
     sp__check_xid,
     NULL,
     NULL},
    {"stream_triad_gbps",
     "perf",
     "STREAM triad of every rank (node workload)",
     {MIN_P("GB/s per rank"), BASE_P},
     sp__check_perf,
     NULL,
     NULL},
    {"gemm_tflops",
     "perf",
     "GEMM of every rank (node workload), and its results exact",
     {MIN_P("TFLOP/s per rank"),
      BASE_P,
      {"dtype", SP_PARAM_STR, 0, "float (default), double, half or bfloat16"}},
     sp__check_perf,
     NULL,
     NULL},
    {"allreduce_busbw_gbps",
     "perf",
     "all_reduce bus bandwidth at a size (coll sweep)",
     {MIN_P("GB/s"), BASE_P, {"size", SP_PARAM_STR, 0, "message size, e.g. \"64M\" (default 64M)"}},
     sp__check_perf,
     NULL,
     NULL},
    {"proxy_step",
     "perf",
     "proxy step time against the proxy runs of --baseline (compare's minimum-effect test)",
     {{"max_slowdown_pct", SP_PARAM_NUM, 1, "percent slower than the baseline that fails"},
      {"args", SP_PARAM_STR, 0, "the proxy's options, e.g. \"--model llama3-8b --layers 4\""},
      {"runs", SP_PARAM_NUM, 0, "proxy runs per attempt, 2-16 (default 3)"}},
     sp__check_proxy,
     NULL,
     NULL},
    {"links_matrix",
     "perf",
     "node-pair link matrix (the links workload) against a floor",
     {MIN_P("GB/s: a node whose median link is below fails, a link below warns its ends"),
      {"min_ratio", SP_PARAM_NUM, 1,
       "ratio to the cohort (0-1): a node the links verdict names below it fails, a link warns"},
      {"size", SP_PARAM_STR, 0, "message size one way, e.g. \"4M\" (default 4M)"},
      {"per", SP_PARAM_STR, 0, "unit of the matrix: node (default) or rank"}},
     sp__check_links,
     NULL,
     NULL},
};
const int sp_check_ndefs = (int)(sizeof(sp_check_defs) / sizeof(sp_check_defs[0]));

static int in_list(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i], name) == 0) {
            return 1;
        }
    }
    return 0;
}

const char *sp_check_validate(const sp_spec_check_t *c)
{
    const char *name = sp_check_defs[c->def].name;

    if (strcmp(name, "throttle_reasons") == 0) {
        const char *known[16];
        for (int t = 0; t < sp_health_nthrottles && t < 16; t++) {
            known[t] = sp_health_throttles[t].name;
        }
        for (int p = 0; p < 2; p++) {
            for (int k = 0; k < c->val[p].nlist; k++) {
                if (!in_list(c->val[p].names[k], known, sp_health_nthrottles)) {
                    return "unknown throttle reason (known: gpu_idle, applications_clocks, "
                           "sw_power_cap, hw_slowdown, sync_boost, sw_thermal, hw_thermal, "
                           "hw_power_brake, display_clocks)";
                }
            }
        }
    }
    if (strcmp(name, "ib_error_counters") == 0) {
        for (int k = 0; k < c->val[1].nlist; k++) {
            if (!in_list(c->val[1].names[k], sp_health_ib_counter_names, SP_IB_NCOUNTERS)) {
                return "unknown counter (known: symbol_error, link_downed, link_error_recovery, "
                       "port_rcv_errors, local_link_integrity_errors, "
                       "excessive_buffer_overrun_errors)";
            }
        }
    }
    if (strcmp(name, "gemm_tflops") == 0 && c->val[2].set) {
        static const char *const types[] = {"float", "double", "half", "bfloat16"};
        if (!in_list(c->val[2].str, types, 4)) {
            return "'dtype' must be float, double, half or bfloat16";
        }
    }
    if (strcmp(name, "proxy_step") == 0) {
        const char *why = sp_accept_proxy_validate(c);
        if (why != NULL) {
            return why;
        }
    }
    if (strcmp(name, "links_matrix") == 0) {
        uint64_t bytes = 0;
        if (c->val[1].set && !(c->val[1].num > 0.0 && c->val[1].num < 1.0)) {
            return "'min_ratio' must lie between 0 and 1 (a share of the cohort)";
        }
        if (c->val[2].set && (sp_parse_size(c->val[2].str, &bytes) != SP_OK || bytes == 0)) {
            return "'size' must be a size such as \"4M\"";
        }
        if (c->val[3].set && strcmp(c->val[3].str, "node") != 0 &&
            strcmp(c->val[3].str, "rank") != 0) {
            return "'per' must be node or rank";
        }
    }
    if (strcmp(name, "allreduce_busbw_gbps") == 0 && c->val[2].set) {
        uint64_t bytes = 0;
        if (sp_parse_size(c->val[2].str, &bytes) != SP_OK || bytes == 0) {
            return "'size' must be a size such as \"64M\"";
        }
    }
    return NULL;
}

int sp_check_find(const char *name)
{
    for (int i = 0; i < sp_check_ndefs; i++) {
        if (strcmp(sp_check_defs[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

void sp__check_note(sp_check_result_t *r, const char *fmt, ...)
{
    size_t n = strlen(r->evidence);
    va_list ap;

    if (n + 1 >= sizeof(r->evidence)) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(r->evidence + n, sizeof(r->evidence) - n, fmt, ap);
    va_end(ap);
}

void sp__check_limit(const sp_spec_check_t *c, double value, double limit, int is_max,
                     sp_check_result_t *r)
{
    int broken = is_max ? value > limit : value < limit;

    snprintf(r->threshold, sizeof(r->threshold), "%s %g", is_max ? "<=" : ">=", limit);
    r->value = value;
    snprintf(r->value_text, sizeof(r->value_text), "%g", value);
    r->verdict = !broken                      ? SP_VERDICT_PASS
                 : c->severity == SP_SEV_WARN ? SP_VERDICT_WARN
                                              : SP_VERDICT_FAIL;
}

void sp_check_eval(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r)
{
    memset(r, 0, sizeof(*r));
    r->value = NAN;
    r->verdict = SP_VERDICT_NA;
    sp_check_defs[c->def].eval(c, in, r);
}
