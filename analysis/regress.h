/* `scaleprobe regress FILE... [--json] [--threshold PCT] [--alpha A] [--sort-by-time]
 * [--min-segment N]`: a series of result files of one cluster (nightly runs, in the order given
 * or by creation time); per metric (each sweep point's median time, the proxy's step time,
 * bubble and exposed communication) one value per run, an outlier screen, then change points
 * (changepoint.h: a t scan where the permutation floor is too high for the series, else block
 * permutations) with their size as a ratio of geometric means and a simultaneous t interval, and
 * what changed in the options and fingerprint at each. Exit 0: no shift beyond the threshold; 1:
 * one (a pipeline can gate on it); 2: bad input (fewer than 3 files, an unreadable file, files
 * of different kinds, bad options). */
#ifndef SP_REGRESS_H
#define SP_REGRESS_H

int sp_regress_main(int argc, char **argv);

#endif
