/* The option table of `scaleprobe accept` and its parsed spec. */
#ifndef SP_ACCEPT_OPTIONS_H
#define SP_ACCEPT_OPTIONS_H

#include <stddef.h>

#include "options.h"
#include "runopts.h"
#include "spec.h"

#define SP_ACCEPT_MAX_ARGS 256

typedef struct {
    sp_opt_args_t args; /* SPEC (one) */
    char *args_store[SP_ACCEPT_MAX_ARGS];
    char json[SP_OPT_STRLEN];
    char junit[SP_OPT_STRLEN];
    char exclude[SP_OPT_STRLEN];
    char sys_root[SP_OPT_STRLEN];
    char kernel_log[SP_OPT_STRLEN];
    char baseline[SP_OPT_STRLEN];
    double window;
    int health_only;
    int list_checks;
    sp_run_opts_t run;
    sp_spec_t spec; /* parsed from args.v[0] */
} sp_accept_opts_t;

extern const sp_opt_table_t sp_accept_opt_table;

/* Parse argv[first..) and the spec file it names; SP_ERR_INVALID with one message in err. */
sp_status_t sp_accept_opts_parse(int argc, char **argv, int first, sp_accept_opts_t *o, int *help_p,
                                 char *err, size_t errlen);

/* The check registry as a table on out (--list-checks). */
void sp_accept_list_checks(FILE *out);

#endif
