/* `scaleprobe compare A.h5 B.h5 [--threshold PCT] [--json]`: what differs between two runs
 * (environment, versions, launch, shape), then every matching sweep point (or the proxy's step
 * time) as the ratio of B's median to A's with a bootstrap 95% CI, Benjamini-Hochberg control
 * over the points, and a verdict: slower / faster (significant and beyond the threshold) or
 * within noise. Exit 0: nothing slower; 1: something slower (a pipeline can gate on it); 2: bad
 * input or files that cannot be compared. */
#ifndef SP_COMPARE_H
#define SP_COMPARE_H

int sp_compare_main(int argc, char **argv);

#endif
