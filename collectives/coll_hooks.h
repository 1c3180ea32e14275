/* Hook helpers shared by the collective files (internal to collectives/). */
#ifndef SP_COLL_HOOKS_H
#define SP_COLL_HOOKS_H

#include "coll.h"
#include "pattern.h"

/* one span over the whole output (recv_count elements) whose pattern the caller has set; 1 */
size_t sp__coll_span_all(const sp_coll_args_t *args, sp_pattern_span_t *span);
double sp__coll_factor_one(int nranks);
double sp__coll_factor_nm1_n(int nranks);
double sp__coll_bytes_param(const sp_coll_args_t *args);
double sp__coll_bytes_param_n(const sp_coll_args_t *args);
int sp__coll_output_everywhere(const sp_coll_args_t *args);
int sp__coll_output_at_root(const sp_coll_args_t *args);
void sp__coll_counts_whole(size_t count, size_t elt_size, int nranks, sp_coll_counts_t *out_p);
/* all_gather and gather: base per rank in, base*n out; the output block s comes from rank s */
void sp__coll_counts_gathered(size_t count, size_t elt_size, int nranks, sp_coll_counts_t *out_p);
size_t sp__coll_output_gathered(const sp_coll_args_t *args, sp_pattern_span_t *spans);
/* reduce_scatter and scatter: base*n in, block `rank` (base elements) out */
void sp__coll_counts_scattered(size_t count, size_t elt_size, int nranks, sp_coll_counts_t *out_p);
/* all_reduce and reduce: the reduction of element i */
size_t sp__coll_output_red(const sp_coll_args_t *args, sp_pattern_span_t *spans);

#endif
