/* report's sections from the timeline (the late arrivals and the late nodes), from one
 * streaming pass (arrivals.h) that report also uses for "Ranks late most often". */
#ifndef SP_REPORT_ARRIVALS_H
#define SP_REPORT_ARRIVALS_H

#include <stdio.h>

#include "arrivals.h"
#include "reader.h"

/* The pass over rd's timeline (sp_arrivals_scan with rd's ranks and nodes); a file of one rank
 * is not scanned (SP_ERR_INVALID, nothing to free). */
sp_status_t sp_report_arrivals_scan(const sp_reader_t *rd, sp_arrivals_t *a);

/* "Late arrivals" and "Late nodes" from a pass that returned st (a scan that could not read the
 * timeline prints a PARTIAL REPORT line instead). */
void sp_report_arrivals_print(const sp_reader_t *rd, sp_status_t st, sp_arrivals_t *a,
                              FILE *out);

#endif
