/* The proxy_step check's parameters: its "args" as proxy options, its runs and threshold. */
#include "proxy_args.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 32

/* The spec's "args" split at blanks into argv[2..] after "scaleprobe proxy"; argc. */
static int split_args(const char *args, char *buf, size_t len, char **argv)
{
    int argc = 2;

    argv[0] = "scaleprobe";
    argv[1] = "proxy";
    snprintf(buf, len, "%s", args);
    for (char *tok = strtok(buf, " \t"); tok != NULL && argc < MAX_ARGS; tok = strtok(NULL, " \t")) {
        argv[argc++] = tok;
    }
    argv[argc] = NULL;
    return argc;
}

/* The check's proxy options parsed into *po; SP_ERR_INVALID with the parser's message. */
sp_status_t sp_accept_proxy_args(const sp_spec_check_t *c, sp_proxy_opts_t *po, char *err,
                                 size_t errlen)
{
    char buf[sizeof(c->val[1].str)], *argv[MAX_ARGS + 1];
    int help = 0, argc = split_args(c->val[1].set ? c->val[1].str : "", buf, sizeof(buf), argv);
    sp_status_t st = sp_proxy_opts_parse(argc, argv, 2, po, &help, err, errlen);
    /* the run's own options are accept's: a backend or output here would be ignored */
    static const char *const theirs[] = {"--backend", "--device", "--timeout", "-O",
                                         "--output",  "--force",  "-h",        "--help"};

    for (int i = 2; st == SP_OK && i < argc; i++) {
        for (size_t k = 0; k < sizeof(theirs) / sizeof(theirs[0]); k++) {
            if (strncmp(argv[i], theirs[k], strlen(theirs[k])) == 0 &&
                (argv[i][strlen(theirs[k])] == '\0' || argv[i][strlen(theirs[k])] == '=')) {
                snprintf(err, errlen, "give the proxy's workload only (%s is accept's option)",
                         theirs[k]);
                st = SP_ERR_INVALID;
                break;
            }
        }
    }
    (void)help;
    return st;
}

const char *sp_accept_proxy_validate(const sp_spec_check_t *c)
{
    static char why[300];
    char err[256] = "";
    sp_proxy_opts_t *po = calloc(1, sizeof(*po));
    sp_status_t st = po != NULL ? sp_accept_proxy_args(c, po, err, sizeof(err)) : SP_ERR_NOMEM;

    free(po);
    if (st != SP_OK) {
        snprintf(why, sizeof(why), "'args': %s", err[0] ? err : sp_status_str(st));
        return why;
    }
    if (c->val[2].set && !(c->val[2].num >= 2 && c->val[2].num <= SP_SPEC_MAX_LIST &&
                           c->val[2].num == floor(c->val[2].num))) {
        return "'runs' must be a whole number from 2 to 16 (the test needs 2 runs a side)";
    }
    if (c->val[0].set && !(c->val[0].num >= 0.0 && c->val[0].num < 100.0)) {
        return "'max_slowdown_pct' must be a percentage in [0, 100)";
    }
    return NULL;
}
