/* JSON output shared by the offline commands (export, compare, regress, fingerprint diffs). */
#ifndef SP_JSON_H
#define SP_JSON_H

#include <stdio.h>

/* Write str as a JSON string literal: quotes and backslashes escaped, control characters and
 * bytes that do not start valid UTF-8 as \u00XX, so the output stays valid JSON whatever bytes
 * a host name or an environment value holds. */
void sp_json_str(FILE *out, const char *str);

/* Write ', "key": v' with v as a JSON number (%.6g), or null when it is NaN or infinite (JSON
 * has neither). */
void sp_json_num(FILE *out, const char *key, double v);

#endif
