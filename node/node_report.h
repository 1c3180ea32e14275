/* /node read back and summarized for `scaleprobe report`: the per-rank baselines, the outliers
 * and the burn with any wrong result. */
#ifndef SP_NODE_REPORT_H
#define SP_NODE_REPORT_H

#include <hdf5.h>
#include <stdio.h>

#include "reader.h"

/* Read /node of an open file into rd (nothing when the file has none; rd->has_node set when it
 * has). SP_ERR_FORMAT for unreadable tables. Called by sp_reader_open. */
sp_status_t sp_node_reader_load(hid_t file, sp_reader_t *rd);

/* Free what sp_node_reader_load read (called by sp_reader_close). */
void sp_node_reader_free(sp_reader_t *rd);

/* The node section of the report (rd->has_node). */
void sp_node_report_print(const sp_reader_t *rd, FILE *out);

#endif
