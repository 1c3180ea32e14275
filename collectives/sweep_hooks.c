/* The sweep's test-only fault injection, read from the environment (docs/METHODOLOGY.md). */
#include "sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Test-only fault injection (docs/METHODOLOGY.md): the rank named here corrupts one element of
 * its output before verification, to prove that wrong data is caught and attributed. */

int sp__sweep_corrupt_rank_from_env(void)
{
    const char *v = getenv("SCALEPROBE_TEST_CORRUPT_RANK");

    return v != NULL && *v != '\0' ? atoi(v) : -1;
}

void sp__sweep_delay_from_env(sp_sweep_bufs_t *bufs)
{
    const char *v = getenv("SCALEPROBE_TEST_DELAY");
    char coll[64] = "";

    bufs->delay_rank = -1;
    bufs->delay_us = 0;
    bufs->delay_coll = -1;
    if (v == NULL || sscanf(v, "%d:%ld:%63s", &bufs->delay_rank, &bufs->delay_us, coll) < 2) {
        bufs->delay_rank = -1;
        return;
    }
    for (int c = 0; c < SP_COLL_COUNT && coll[0] != '\0'; c++) {
        if (strcmp(coll, sp_coll_names[c]) == 0) {
            bufs->delay_coll = c;
        }
    }
}
