/* /accept of the result file: every check's verdict with value, threshold and evidence, and
 * every node's health summary and verdict (docs/SCHEMA.md). Rank 0 only. */
#ifndef SP_ACCEPT_RESULT_H
#define SP_ACCEPT_RESULT_H

#include "health.h"
#include "result.h"
#include "spec.h"
#include "verdict.h"

#include <stddef.h>
#include <stdint.h>

/* One row of /accept/checks. */
typedef struct {
    int32_t node;
    char host[64];
    char type[32];
    char check[32];
    int8_t verdict; /* sp_verdict_t */
    double value;
    char value_text[64];
    char threshold[96];
    char evidence[512];
    int32_t spec_line;
} sp_accept_check_row_t;

/* Write /accept: attributes (spec, verdict, counts), /accept/checks, /accept/nodes. */
sp_status_t sp_accept_result_write(sp_result_t *res, const sp_spec_t *spec,
                                   const sp_health_node_t *nodes, const sp_accept_eval_t *ev);

/* Every row of /accept/checks of the file at path (*rows_p: caller frees). SP_ERR_FORMAT when
 * the file has no /accept, SP_ERR_IO when it cannot be read. */
sp_status_t sp_accept_result_read_checks(const char *path, sp_accept_check_row_t **rows_p,
                                         size_t *n_p);

#endif
