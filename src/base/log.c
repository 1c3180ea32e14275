/* Diagnostics on stderr with a "[scaleprobe rank R host H]" prefix. One fprintf per message so
 * lines from different ranks do not interleave mid-line. */
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int log_rank = -1;
static char log_host[64];
static sp_log_level_t log_level = SP_LOG_WARN;
static int log_level_from_env_done;

static void log_level_from_env(void)
{
    const char *v = getenv("SCALEPROBE_LOG");

    log_level_from_env_done = 1;
    if (v == NULL) {
        return;
    }
    if (strcasecmp(v, "debug") == 0) {
        log_level = SP_LOG_DEBUG;
    } else if (strcasecmp(v, "info") == 0) {
        log_level = SP_LOG_INFO;
    } else if (strcasecmp(v, "error") == 0) {
        log_level = SP_LOG_ERROR;
    }
}

void sp_log_set_identity(int rank, const char *host)
{
    log_rank = rank;
    snprintf(log_host, sizeof(log_host), "%s", host != NULL ? host : "");
}

void sp_log_set_level(sp_log_level_t level)
{
    log_level_from_env_done = 1;
    log_level = level;
}

sp_log_level_t sp_log_get_level(void)
{
    if (!log_level_from_env_done) {
        log_level_from_env();
    }
    return log_level;
}

void sp_log_vmsg(sp_log_level_t level, const char *fmt, va_list ap)
{
    static const char *names[] = {"error", "warning", "info", "debug"};
    char body[1024];
    char prefix[128];

    if (level > sp_log_get_level()) {
        return;
    }
    vsnprintf(body, sizeof(body), fmt, ap);
    if (log_rank >= 0) {
        snprintf(prefix, sizeof(prefix), "[scaleprobe rank %d %s] ", log_rank, log_host);
    } else {
        snprintf(prefix, sizeof(prefix), "scaleprobe: ");
    }
    fprintf(stderr, "%s%s: %s\n", prefix, names[level], body);
}

void sp_log_msg(sp_log_level_t level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sp_log_vmsg(level, fmt, ap);
    va_end(ap);
}
