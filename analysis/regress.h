/* `scaleprobe regress FILE... [--json] [--threshold PCT] [--alpha A] [--sort-by-time]
 * [--min-segment N]`: a series of result files of one cluster (nightly runs, in the order given
 * or by creation time); per metric (each sweep point's median time, the proxy's step time,
 * bubble and exposed communication) one value per run, an outlier screen, then change points
 * (changepoint.h) with their size as a ratio of medians and a bootstrap 95% CI. Exit 0: no
 * shift; 1: a shift (a pipeline can gate on it); 2: bad input (fewer than 3 files, an unreadable
 * file, files of different kinds). */
#ifndef SP_REGRESS_H
#define SP_REGRESS_H

int sp_regress_main(int argc, char **argv);

#endif
