/* The batch size k of a sweep point: how many operations one sample times back to back. */
#ifndef SP_SWEEP_BATCH_H
#define SP_SWEEP_BATCH_H

#define SP_MAX_BATCH 10000
#define SP_CALIBRATION_OPS 5 /* single operations timed to choose k */

/*
 * k for an operation of op_us (the max over ranks of each rank's median of SP_CALIBRATION_OPS
 * single timed operations) so that a sample lasts about batch_us: batch_us / op_us rounded to the
 * nearest value of the 1-2-5 series (1, 2, 5, 10, 20, 50, ...) on a log scale, within 1 and
 * SP_MAX_BATCH, then raised to min_k (--min-batch; values below 1 count as 1, above SP_MAX_BATCH
 * as SP_MAX_BATCH). The minimum keeps an operation longer than batch_us from being timed alone
 * (k = 1 includes the barrier's exit skew in its one sample) and from flipping between k = 1 and
 * k = 2 across runs when its time is near batch_us (docs/METHODOLOGY.md). The series keeps k from jittering between identical points: every k covers a
 * range of times at least 1.58x wide (2 to 5: sqrt(2.5) on each side), where the raw quotient
 * changes k whenever the time moves by 1/k. op_us <= 0 or NaN gives SP_MAX_BATCH. Pure.
 */
long sp_sweep_batch_k(double op_us, double batch_us, long min_k);

#endif
