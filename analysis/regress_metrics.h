/* regress: the metrics of a series of result files, one value per run (not a public API; see
 * regress.h). Sweep points are keyed by the fields that identify a point, proxy metrics by
 * label. */
#ifndef SP_REGRESS_METRICS_H
#define SP_REGRESS_METRICS_H

#include <stddef.h>

#include "coll.h"
#include "reader.h"

typedef struct {
    char label[128];
    const char *unit;
    int is_sweep;
    sp_coll_row_t key; /* sweep points: the fields that identify a point */
    double *value;     /* per run, by file index; NaN where the run does not have it */
    double *busbw;     /* per run, sweep points only; NaN where undefined */
} metric_t;

typedef struct {
    metric_t *m;
    size_t n, cap;
    size_t nfiles;
} metric_list_t;

/* Add file `run`'s values to l (l->nfiles set by the caller). 0 on success, -1 out of memory. */
int sp__regress_add_run(metric_list_t *l, const sp_reader_t *rd, size_t run);

/* Free the metrics' arrays and the list's own (not l itself). */
void sp__regress_metrics_free(metric_list_t *l);

#endif
