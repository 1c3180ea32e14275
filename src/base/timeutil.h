/* Monotonic time and wall-clock strings. */
#ifndef SP_TIMEUTIL_H
#define SP_TIMEUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t sp_time_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* UTC time as ISO 8601 ("2026-12-02T17:35:14Z") and as a file-name stamp ("20261202-173514"). */
void sp_time_iso8601(time_t t, char *out, size_t outlen);
void sp_time_stamp(time_t t, char *out, size_t outlen);

#endif
