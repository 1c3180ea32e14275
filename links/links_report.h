/* What `scaleprobe links` concludes and prints, from its tables: the matrices, the node and
 * link outliers (computed here from the pairs, once, at the end of a run), the screening steps
 * and verdict, and the exclude list (hostnames and JSON, Slurm commands printed, never run).
 * The run and `report` print through the same functions. No MPI. */
#ifndef SP_LINKS_REPORT_H
#define SP_LINKS_REPORT_H

#include <stdio.h>

#include "links_result.h"

/*
 * Outliers of a link matrix from its pair rows (bandwidth and latency; links_verdict.h's rule
 * with each metric's threshold): rows into out (at most 2 * (n + n * (n - 1) / 2)), *nout_p how many, and
 * the cohort of each metric (GB/s, us) into cohort[2]. With units per rail, each rail's matrix
 * is judged on its own (its own cohort, in its outlier rows) and cohort[] is the median over
 * the rails. Returns SP_ERR_NOMEM, SP_ERR_INVALID.
 */
sp_status_t sp_links_analyze(const sp_links_result_data_t *d,
                             const double threshold[SP_LINKS_METRIC_COUNT],
                             sp_links_outlier_row_t *out, size_t *nout_p, double *cohort);

/* The rails of d: with units per rail (rail-major, every rail the same nodes), the number of
 * rails and the nodes per rail in *nodes_p; otherwise 1 and all the units in *nodes_p. */
int sp_links_rails(const sp_links_result_data_t *d, int *nodes_p);

/* sp_links_analyze for one rail's block of the matrix (rail 0 without rails: all of it), the
 * outliers' units those of the whole matrix, cohort[2] the rail's. SP_ERR_INVALID for a rail
 * out of range. */
sp_status_t sp_links_analyze_rail(const sp_links_result_data_t *d,
                                  const double threshold[SP_LINKS_METRIC_COUNT], int rail,
                                  sp_links_outlier_row_t *out, size_t *nout_p, double *cohort);

/* For every cell of the n x n matrix of metric m (row: src, column: dst; latency both ways),
 * the pair row that counts (sp_links_row_better over passes), NULL where not measured. The
 * caller frees the array (not the rows, which stay d's). NULL when out of memory. */
const sp_links_pair_row_t **sp_links_best_rows(const sp_links_result_data_t *d,
                                               sp_links_metric_t m, int n);

/* The whole /links section: header, matrices (up to 16 units), steps, outliers, the Slurm
 * lines. */
void sp_links_report_print(const sp_links_result_data_t *d, FILE *out);

/* The host the screen named (its verdict line), into host; 0 when it named none. */
int sp_links_screen_host(const sp_links_result_data_t *d, char *host, size_t len);

/* The nodes to drain (slow nodes of the matrix, and the screen's verdict), as Slurm's
 * --exclude list "h1,h7" into buf; returns how many. */
int sp_links_exclude_hosts(const sp_links_result_data_t *d, char *buf, size_t len);

/* PREFIX.txt (one host a line) and PREFIX.json (reason and evidence per node, the slow links,
 * the Slurm commands); source names the result file. SP_ERR_IO with a message on stderr. */
sp_status_t sp_links_exclude_write(const sp_links_result_data_t *d, const char *prefix,
                                   const char *source);

#endif
