/* The batch size k of a sweep point (sweep_batch.h). */
#include "sweep_batch.h"

#include <math.h>

/* batch_us / op_us on the 1-2-5 series within 1 and SP_MAX_BATCH */
static long series_k(double op_us, double batch_us)
{
    static const double series[] = {1.0, 2.0, 5.0};
    double raw;
    double best = 1.0;
    double best_dist = INFINITY;

    if (!(op_us > 0.0)) {
        return SP_MAX_BATCH;
    }
    raw = batch_us / op_us;
    if (!(raw > 1.0)) {
        return 1;
    }
    if (raw >= SP_MAX_BATCH) {
        return SP_MAX_BATCH;
    }
    /* the nearest series value in log distance, from the decade below raw to the one above */
    for (double decade = pow(10.0, floor(log10(raw))); decade <= 10.0 * raw; decade *= 10.0) {
        for (int i = 0; i < 3; i++) {
            double v = series[i] * decade;
            double d = fabs(log(v / raw));
            if (d < best_dist) {
                best_dist = d;
                best = v;
            }
        }
    }
    return best > SP_MAX_BATCH ? SP_MAX_BATCH : (long)llround(best);
}

long sp_sweep_batch_k(double op_us, double batch_us, long min_k)
{
    long k = series_k(op_us, batch_us);

    if (min_k > SP_MAX_BATCH) {
        min_k = SP_MAX_BATCH;
    }
    return k < min_k ? min_k : k;
}
