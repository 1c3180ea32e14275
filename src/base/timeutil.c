/* Wall-clock formatting (UTC, so files from different sites compare). */
#include "timeutil.h"

void sp_time_iso8601(time_t t, char *out, size_t outlen)
{
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, outlen, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void sp_time_stamp(time_t t, char *out, size_t outlen)
{
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, outlen, "%Y%m%d-%H%M%S", &tm);
}
