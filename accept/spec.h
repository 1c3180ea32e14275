/* The spec of `scaleprobe accept`: node types (how a node is recognized) and, per type, the
 * checks with their thresholds, read from a JSON file with cJSON. Every error names the line of
 * the spec it is about. The checks themselves are a registry (checks.h). */
#ifndef SP_ACCEPT_SPEC_H
#define SP_ACCEPT_SPEC_H

#include <stddef.h>

#include "status.h"

#define SP_SPEC_MAX_TYPES 8
#define SP_SPEC_MAX_CHECKS 32 /* more than the registry has rows */
#define SP_SPEC_MAX_PARAMS 4
#define SP_SPEC_MAX_LIST 16

/* One parameter's value as the spec gave it. */
typedef struct {
    int set;
    double num; /* a number, or a boolean as 0/1 */
    int nlist;  /* a list: numbers in list, names in names */
    double list[SP_SPEC_MAX_LIST];
    char names[SP_SPEC_MAX_LIST][32];
    char str[64]; /* a string */
} sp_spec_val_t;

typedef enum { SP_SEV_FAIL, SP_SEV_WARN } sp_severity_t;

typedef struct {
    int def;                               /* index into the check registry (checks.h) */
    int line;                              /* of its name in the spec */
    sp_severity_t severity;                /* what breaking a threshold is ("severity") */
    sp_spec_val_t val[SP_SPEC_MAX_PARAMS]; /* by the definition's parameter order */
    double baseline; /* the baseline's median for this node type and check (--baseline); NAN */
    /* proxy_step: the baseline's runs (each run's median step time, ms) from --baseline */
    double base_runs_ms[SP_SPEC_MAX_LIST];
    int nbase_runs;
    char base_workload[200]; /* what the baseline's proxy runs ran */
} sp_spec_check_t;

typedef struct {
    char name[32];
    int line;
    char hosts[128]; /* fnmatch pattern of host names; "*" by default */
    int gpus;        /* GPUs NVML must see for the type to match; -1: any */
    int nchecks;
    sp_spec_check_t checks[SP_SPEC_MAX_CHECKS];
} sp_spec_type_t;

typedef struct {
    char path[256];
    int repeats; /* runs of a failing performance gate before it fails (>= 1) */
    int ntypes;
    sp_spec_type_t types[SP_SPEC_MAX_TYPES];
} sp_spec_t;

/* Parse the spec text (NUL-terminated) into *spec. SP_ERR_INVALID with "PATH:LINE: what" in err
 * on a syntax error, an unknown key, check or node type field, a wrong type, a missing
 * threshold or a check this build does not have. path names the file in messages. */
sp_status_t sp_spec_parse(const char *text, const char *path, sp_spec_t *spec, char *err,
                          size_t errlen);

/* Read and parse the file at path (sp_spec_parse's errors, and one for an unreadable file). */
sp_status_t sp_spec_load(const char *path, sp_spec_t *spec, char *err, size_t errlen);

/* The first node type matching a host with ngpus GPUs (-1: NVML absent counts as 0), in spec
 * order; -1 when none does. */
int sp_spec_match(const sp_spec_t *spec, const char *host, int ngpus);

#endif
