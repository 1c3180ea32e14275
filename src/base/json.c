/* JSON output shared by the offline commands (see json.h). */
#include "json.h"

#include <math.h>

/* Length of the valid UTF-8 sequence at s, 0 when s does not start one (overlong forms and
 * surrogates included), so JSON output stays valid whatever bytes a host name holds. */
static size_t utf8_len(const unsigned char *s)
{
    size_t n;

    if (s[0] < 0x80) {
        return 1;
    }
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        n = 2;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        n = 3;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        n = 4;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0;
        }
    }
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) ||
        (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90)) {
        return 0;
    }
    return n;
}

/* A JSON string literal; bytes that are not UTF-8 are written as the code point of their value. */
void sp_json_str(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;

    fputc('"', out);
    while (*s != '\0') {
        size_t n = utf8_len(s);
        if (*s == '"' || *s == '\\') {
            fputc('\\', out);
            fputc(*s, out);
        } else if (*s < 0x20 || n == 0) {
            fprintf(out, "\\u%04x", (unsigned)*s);
            n = 1;
        } else {
            fwrite(s, 1, n, out);
        }
        s += n == 0 ? 1 : n;
    }
    fputc('"', out);
}

void sp_json_num(FILE *out, const char *key, double v)
{
    if (isfinite(v)) {
        fprintf(out, ", \"%s\": %.6g", key, v);
    } else {
        fprintf(out, ", \"%s\": null", key);
    }
}
