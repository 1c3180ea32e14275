/* Diagnostics on stderr, prefixed with rank and host; results never go through here. */
#ifndef SP_LOG_H
#define SP_LOG_H

#include <stdarg.h>

typedef enum { SP_LOG_ERROR = 0, SP_LOG_WARN = 1, SP_LOG_INFO = 2, SP_LOG_DEBUG = 3 } sp_log_level_t;

/* Set the prefix identity once the rank is known (rank < 0: no rank in the prefix). */
void sp_log_set_identity(int rank, const char *host);

/* Messages above this level are dropped. Default SP_LOG_WARN, SCALEPROBE_LOG=debug|info|warn|error. */
void sp_log_set_level(sp_log_level_t level);
sp_log_level_t sp_log_get_level(void);

void sp_log_msg(sp_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sp_log_vmsg(sp_log_level_t level, const char *fmt, va_list ap);

#define sp_error(...) sp_log_msg(SP_LOG_ERROR, __VA_ARGS__)
#define sp_warn(...) sp_log_msg(SP_LOG_WARN, __VA_ARGS__)
#define sp_info(...) sp_log_msg(SP_LOG_INFO, __VA_ARGS__)
#define sp_debug(...) sp_log_msg(SP_LOG_DEBUG, __VA_ARGS__)

#endif
