/* The check registry of `scaleprobe accept`: one row per check (its name, what it reads, its
 * parameters with their types, and its evaluation), and the verdict of one check on one node. */
#ifndef SP_ACCEPT_CHECKS_H
#define SP_ACCEPT_CHECKS_H

#include <stddef.h>

#include "health.h"
#include "spec.h"

typedef enum { SP_VERDICT_PASS, SP_VERDICT_NA, SP_VERDICT_WARN, SP_VERDICT_FAIL } sp_verdict_t;

extern const char *const sp_verdict_names[4]; /* "PASS", "N/A", "WARN", "FAIL" */

typedef enum {
    SP_PARAM_NUM,
    SP_PARAM_BOOL,
    SP_PARAM_NUMS,
    SP_PARAM_NAMES,
    SP_PARAM_STR
} sp_param_type_t;

typedef struct {
    const char *name;
    sp_param_type_t type;
    int threshold; /* a threshold: a check needs at least one of its thresholds set */
    const char *help;
} sp_param_def_t;

/* Performance measurements of one node, filled by the performance gates (perf.h): the best of
 * the attempts (a gate is re-run up to the spec's repeats while it fails); NAN when not
 * measured. */
typedef struct {
    double triad_gbps;    /* the node's lowest rank's median */
    double gemm_tflops;   /* the node's lowest rank's median */
    long long gemm_wrong; /* wrong GEMM elements in the burn checks, over every attempt */
    double busbw_gbps;    /* the job's all_reduce at the gate's size */
    int busbw_slowest;    /* this node holds the slowest rank of that all_reduce */
    double links_gbps;    /* links gate: the median bandwidth of the node's links, both ways */
    double links_ratio;   /* that median / the matrix's cohort */
    double links_worst_gbps; /* the node's slowest link */
    int links_node;       /* the links verdict named the node slow (bandwidth) */
    int links_slow_link;  /* the links verdict named a slow link with an end on the node */
    double proxy_runs_ms[SP_SPEC_MAX_LIST]; /* proxy gate: each run's median step time, ms */
    int nproxy_runs;
    char proxy_workload[200]; /* what the proxy ran (sp__accept_proxy_workload) */
    int attempts;
    char triad_evidence[160];
    char gemm_evidence[160];
    char busbw_evidence[160];
    char links_evidence[400];
} sp_perf_node_t;

/* What a check sees of one node. */
typedef struct {
    const sp_health_node_t *h;
    const sp_perf_node_t *perf; /* NULL when no performance gate ran */
} sp_check_input_t;

/* One verdict: measured value (text and number), threshold, evidence. */
typedef struct {
    sp_verdict_t verdict;
    double value; /* NAN when the value is not a number */
    char value_text[64];
    char threshold[96];
    char evidence[512];
} sp_check_result_t;

typedef struct {
    const char *name;
    const char *group; /* "gpu", "host" or "perf" */
    const char *help;
    sp_param_def_t params[SP_SPEC_MAX_PARAMS];
    /* NULL: not available in this build (the spec is refused) */
    void (*eval)(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r);
    const char *unavailable; /* why, when eval is NULL */
    /* per-GPU numeric checks (eval sp__check_gpu_numeric): the GPU's value, < 0 unknown */
    double (*gpu_value)(const sp_health_gpu_t *g);
} sp_check_def_t;

extern const sp_check_def_t sp_check_defs[];
extern const int sp_check_ndefs;

/* Evaluations shared by the rows (checks_gpu.c, checks_host.c). */
void sp__check_gpu_numeric(const sp_spec_check_t *c, const sp_check_input_t *in,
                           sp_check_result_t *r);
void sp__check_gpu_count(const sp_spec_check_t *c, const sp_check_input_t *in,
                         sp_check_result_t *r);
void sp__check_throttle(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r);
void sp__check_memory(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r);
void sp__check_governor(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r);
void sp__check_ib_ports(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r);
void sp__check_ib_rate(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r);
void sp__check_ib_counters(const sp_spec_check_t *c, const sp_check_input_t *in,
                           sp_check_result_t *r);
void sp__check_xid(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r);
void sp__check_perf(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r);
void sp__check_proxy(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r);
void sp__check_links(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r);

/* Compare value with a limit: above a "max" or below a "min" breaks it (verdict from the
 * check's severity), else PASS; threshold text "<= X" / ">= X". */
void sp__check_limit(const sp_spec_check_t *c, double value, double limit, int is_max,
                     sp_check_result_t *r);

/* Append printf text to r->evidence (truncated when full). */
void sp__check_note(sp_check_result_t *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Checks of a parsed check's values beyond their types (names of throttle reasons and
 * counters, sizes): NULL when fine, else a message (static storage). */
const char *sp_check_validate(const sp_spec_check_t *c);

/* The row named name; -1 when there is none. */
int sp_check_find(const char *name);

/* Evaluate check c on one node into *r. */
void sp_check_eval(const sp_spec_check_t *c, const sp_check_input_t *in, sp_check_result_t *r);

#endif
