/* What differs between the fingerprints of two result files: the majority value of every
 * compared field of /fingerprint/ranks, plus the node and rank counts, side by side. For the
 * compare command; files without /fingerprint/ranks (older runs) give nothing. */
#ifndef SP_FPDIFF_H
#define SP_FPDIFF_H

#include <stdio.h>

#include "fingerprint.h"
#include "kv.h"
#include "status.h"

typedef struct {
    char field[64];
    char a[256];
    char b[256];
} sp_fpdiff_t;

/* The pairs of a and b with the same key and different values, in a's order, then the keys b
 * alone has; a key missing on one side reads "none". Writes at most max into out; returns how
 * many differ (all of them, even beyond max). Pure. */
int sp_fpdiff_kv(const sp_kv_t *a, int na, const sp_kv_t *b, int nb, sp_fpdiff_t *out, int max);

/* The majority fingerprint of nrows rows of /fingerprint/ranks: "nodes", "ranks", then every
 * compared field (its majority over the nodes, "mixed" for a tie). out has room for max pairs;
 * returns how many were written, or SP_ERR_NOMEM / SP_ERR_INVALID (negative). rows are not
 * changed. */
int sp_fpdiff_summary_rows(const sp_fp_rank_t *rows, int nrows, sp_kv_t *out, int max);

/* The same from a result file: *n_p = 0 when it has no /fingerprint/ranks. SP_ERR_IO when the
 * file cannot be opened. */
sp_status_t sp_fpdiff_summary(const char *path, sp_kv_t *out, int max, int *n_p);

/* The value of field f on node `node`: that of its lowest rank which was not flagged for f (the
 * node's majority), into buf; "?" when the node has no rank. Pure. */
void sp_fpdiff_node_value(const sp_fp_rank_t *rows, int nrows, int node, int f, char *buf,
                          size_t len);

/* 1 when name is an entry of the comma-separated list. */
int sp_fpdiff_listed(const char *list, const char *name);

/* The fingerprint section of `scaleprobe report`: CPU, GPUs, NICs and versions once (their
 * majority), then the nodes that differ from the majority of nodes and the ranks that differ
 * from their node, at most 20 lines each. Prints nothing for nrows == 0. */
void sp_fpdiff_print_report(const sp_fp_rank_t *rows, int nrows, FILE *out);

/*
 * Compare the fingerprints of two result files. text (may be NULL) receives one line
 * "  field: A -> B" per difference; json (may be NULL) one array of {"field","a","b"} objects
 * ("[]" when nothing differs or either file has no fingerprint). Returns how many fields differ
 * (0 when either file has none), or a negative status when a file cannot be read.
 */
int sp_fpdiff_files(const char *path_a, const char *path_b, FILE *text, FILE *json);

#endif
