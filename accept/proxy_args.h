/* The proxy_step check's parameters (spec.h): "args" parsed as `scaleprobe proxy` options (split
 * at blanks, no quoting), "runs", "max_slowdown_pct". Pure, no MPI; the spec parser validates
 * with it and the gate (perf_proxy.h) runs what it parses. */
#ifndef SP_ACCEPT_PROXY_ARGS_H
#define SP_ACCEPT_PROXY_ARGS_H

#include <stddef.h>

#include "proxy_options.h"
#include "spec.h"

/* c's "args" into *po; SP_ERR_INVALID with the proxy parser's message in err (and for -O,
 * --force or --help, which the gate sets itself). */
sp_status_t sp_accept_proxy_args(const sp_spec_check_t *c, sp_proxy_opts_t *po, char *err,
                                 size_t errlen);

/* NULL when a proxy_step check's parameters are usable ("args" parse, runs 2-16,
 * max_slowdown_pct in [0, 100)), else a message (static storage). */
const char *sp_accept_proxy_validate(const sp_spec_check_t *c);

#endif
