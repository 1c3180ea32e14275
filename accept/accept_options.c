/* The option table of `scaleprobe accept`; the spec file is read while parsing, so a bad spec
 * is bad input (one message from rank 0, exit 2) before anything runs. */
#include "accept_options.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "checks.h"
#include "health.h"

#define OFF(field) offsetof(sp_accept_opts_t, field)

static const sp_opt_def_t accept_defs[] = {
    {"spec", 0, SP_OPT_ARGS, OFF(args), NULL, "SPEC", "the spec file (JSON)", 1, 1, NULL, 0},
    {"json", 0, SP_OPT_STRING, OFF(json), "", "FILE", "write the verdicts as JSON to FILE", 0, -1,
     NULL, 0},
    {"junit", 0, SP_OPT_STRING, OFF(junit), "", "FILE",
     "write the verdicts as JUnit XML to FILE (a test suite per node, a test case per check)", 0,
     -1, NULL, 0},
    {"exclude", 0, SP_OPT_STRING, OFF(exclude), "", "FILE",
     "write the host names of failed nodes to FILE, one a line (srun --exclude=FILE)", 0, -1, NULL,
     0},
    {"health-only", 0, SP_OPT_FLAG, OFF(health_only), NULL, NULL,
     "health checks only: no performance gate runs (a Slurm prolog)", 0, -1, NULL, 0},
    {"window", 0, SP_OPT_DOUBLE, OFF(window), "1", "SEC",
     "time between the two readings of the port counters when no performance gate runs", 0, 3600,
     NULL, 0},
    {"baseline", 0, SP_OPT_STRING, OFF(baseline), "", "FILE",
     "baseline file of 'accept --make-baseline': a check's baseline_pct is a floor at that "
     "percent of the baseline's median for its node type",
     0, -1, NULL, 0},
    {"sys-root", 0, SP_OPT_STRING, OFF(sys_root), "/sys", "DIR",
     "sysfs root: class/infiniband and devices/system/cpu below it (tests use a fixture)", 0, -1,
     NULL, 0},
    {"kernel-log", 0, SP_OPT_STRING, OFF(kernel_log), "/dev/kmsg", "PATH",
     "kernel log read for Xid events: /dev/kmsg, or a text file of kernel log lines", 0, -1, NULL,
     0},
    {"list-checks", 0, SP_OPT_FLAG, OFF(list_checks), NULL, NULL,
     "print the checks a spec may name, with their parameters, and stop", 0, -1, NULL, 0},
    SP_RUN_OPT_ROWS(sp_accept_opts_t, run, "accept"),
};

const sp_opt_table_t sp_accept_opt_table = {
    .command = "accept",
    .summary = "Acceptance gates: health checks on every node (NVML, kernel log Xid events, "
               "InfiniBand ports,\ngovernor, memory) and performance gates against the "
               "thresholds of a spec; PASS/WARN/FAIL per\ncheck and node, exit 0 pass, 1 fail, 2 "
               "bad spec. Launch with mpirun or srun (one rank per node\nsuffices for the "
               "health part). 'accept --make-baseline RUNS... -O FILE' builds a baseline.",
    .defs = accept_defs,
    .ndefs = (int)(sizeof(accept_defs) / sizeof(accept_defs[0])),
};

static const char *const param_types[] = {"number", "bool", "numbers", "names", "string"};

void sp_accept_list_checks(FILE *out)
{
    for (int i = 0; i < sp_check_ndefs; i++) {
        const sp_check_def_t *d = &sp_check_defs[i];
        fprintf(out, "%-26s %-5s %s%s%s\n", d->name, d->group, d->help,
                d->eval == NULL ? " -- not available: " : "",
                d->eval == NULL ? d->unavailable : "");
        for (int p = 0; p < SP_SPEC_MAX_PARAMS && d->params[p].name != NULL; p++) {
            fprintf(out, "  %-24s %-7s %s%s\n", d->params[p].name, param_types[d->params[p].type],
                    d->params[p].help, d->params[p].threshold ? " (threshold)" : "");
        }
    }
    fprintf(out, "every check also takes \"severity\": \"fail\" (default) or \"warn\"\n");
}

sp_status_t sp_accept_opts_parse(int argc, char **argv, int first, sp_accept_opts_t *o, int *help_p,
                                 char *err, size_t errlen)
{
    sp_status_t status;

    memset(o, 0, offsetof(sp_accept_opts_t, spec));
    o->args.v = o->args_store;
    o->args.cap = SP_ACCEPT_MAX_ARGS;
    status = sp_opts_parse(&sp_accept_opt_table, argc, argv, first, o, help_p, NULL, err, errlen);
    if (status != SP_OK || *help_p) {
        return status;
    }
    if (o->list_checks) {
        *help_p = 1; /* nothing runs */
        return SP_OK;
    }
    if (strlen(o->sys_root) >= sizeof(((sp_health_src_t *)0)->sys_root) ||
        strlen(o->kernel_log) >= sizeof(((sp_health_src_t *)0)->kernel_log)) {
        snprintf(err, errlen, "--sys-root and --kernel-log take at most %zu characters",
                 sizeof(((sp_health_src_t *)0)->sys_root) - 1);
        return SP_ERR_INVALID;
    }
    {
        const char *outs[3] = {o->json, o->junit, o->exclude};
        for (int k = 0; k < 3; k++) {
            if (outs[k][0] != '\0' && !o->run.force && access(outs[k], F_OK) == 0) {
                snprintf(err, errlen, "%.900s exists (use --force to overwrite)", outs[k]);
                return SP_ERR_EXISTS;
            }
        }
    }
    if (o->args.n != 1) {
        snprintf(err, errlen, "give one spec file (got %d)", o->args.n);
        return SP_ERR_INVALID;
    }
    status = sp_spec_load(o->args.v[0], &o->spec, err, errlen);
    /* --health-only runs no performance gate: a floor from a baseline is not needed then */
    if (status == SP_OK && !(o->health_only && o->baseline[0] == '\0')) {
        status = sp_accept_baseline_apply(o->baseline, &o->spec, err, errlen);
    }
    return status;
}
