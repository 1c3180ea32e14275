/* `scaleprobe compare A.h5 B.h5 [--threshold PCT] [--fdr Q] [--json]` (or runs of A --vs runs of
 * B): what differs between two runs (environment, versions, launch, shape), then every matching
 * sweep point (or the proxy's step metrics) as the ratio of B's median to A's with a 95% CI. One
 * run on a side: no verdicts, and the runs per side a verdict needs. Repeated runs per side:
 * slower / faster (changed by more than the threshold: minimum-effect t tests, Benjamini-Hochberg
 * over the points), within threshold (equivalence) or inconclusive. Exit 0: nothing slower or
 * faster beyond the threshold; 1: something is (a pipeline can gate on it); 2: bad input or
 * files that cannot be compared (different workloads or timing methods). */
#ifndef SP_COMPARE_H
#define SP_COMPARE_H

int sp_compare_main(int argc, char **argv);

#endif
