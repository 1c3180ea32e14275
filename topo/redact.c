/* Credentials inside environment values (see redact.h): three passes over a copy, each
 * replacing what it recognizes with "<redacted>". */
#include "redact.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define REDACTED "<redacted>"
#define BUF 1024

static const char *const secret_keys[] = {"password", "passwd", "pwd", "pass", "token", "secret",
                                          "apikey", "api_key"};

/* Append n bytes of s to out (at *used, capacity cap), truncating. */
static void put(char *out, size_t cap, size_t *used, const char *s, size_t n)
{
    if (*used + n >= cap) {
        n = *used < cap - 1 ? cap - 1 - *used : 0;
    }
    memcpy(out + *used, s, n);
    *used += n;
    out[*used] = '\0';
}

static int is_delim(char c)
{
    return c == '\0' || isspace((unsigned char)c) || strchr("\"'&;,", c) != NULL;
}

/* scheme://user:pass@host: everything before the last '@' of the authority. */
static void redact_urls(const char *in, char *out, size_t cap)
{
    size_t used = 0;
    const char *p = in;

    out[0] = '\0';
    for (const char *s; (s = strstr(p, "://")) != NULL;) {
        const char *auth = s + 3;
        const char *end = auth;
        const char *at = NULL;
        while (!is_delim(*end) && strchr("/?#", *end) == NULL) {
            at = *end == '@' ? end : at;
            end++;
        }
        put(out, cap, &used, p, (size_t)(auth - p));
        if (at != NULL) {
            put(out, cap, &used, REDACTED, strlen(REDACTED));
            p = at;
        } else {
            p = auth;
        }
    }
    put(out, cap, &used, p, strlen(p));
}

static int secret_key(const char *key, size_t len)
{
    char lower[64];

    if (len == 0 || len >= sizeof(lower)) {
        return 0;
    }
    for (size_t i = 0; i < len; i++) {
        lower[i] = (char)tolower((unsigned char)key[i]);
    }
    lower[len] = '\0';
    for (size_t i = 0; i < sizeof(secret_keys) / sizeof(secret_keys[0]); i++) {
        size_t k = strlen(secret_keys[i]);
        if (len >= k && strcmp(lower + len - k, secret_keys[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

static int key_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* key=value with a secret key (password=, --password=, DB_PWD=, token=). */
static void redact_pairs(const char *in, char *out, size_t cap)
{
    size_t used = 0;
    const char *p = in;

    out[0] = '\0';
    for (const char *eq; (eq = strchr(p, '=')) != NULL;) {
        const char *key = eq;
        const char *end = eq + 1;
        while (key > p && key_char(key[-1])) {
            key--;
        }
        put(out, cap, &used, p, (size_t)(eq + 1 - p));
        p = eq + 1;
        if (secret_key(key, (size_t)(eq - key)) && (*end == '"' || *end == '\'')) {
            /* a quoted value: to its closing quote (or the end) */
            const char *close = strchr(end + 1, *end);
            end = close != NULL ? close + 1 : end + strlen(end);
            put(out, cap, &used, REDACTED, strlen(REDACTED));
            p = end;
        } else if (secret_key(key, (size_t)(eq - key)) && !is_delim(*end)) {
            while (!is_delim(*end)) {
                end++;
            }
            put(out, cap, &used, REDACTED, strlen(REDACTED));
            p = end;
        }
    }
    put(out, cap, &used, p, strlen(p));
}

static int password_flag(const char *tok, size_t len)
{
    static const char *const flags[] = {"-p", "--password", "--passwd", "--pass"};

    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        if (strlen(flags[i]) == len && strncmp(tok, flags[i], len) == 0) {
            return 1;
        }
    }
    return 0;
}

/* The word after -p / --password (sshpass -p SECRET ssh). */
static void redact_args(const char *in, char *out, size_t cap)
{
    size_t used = 0;
    const char *p = in;
    int hide_next = 0;

    out[0] = '\0';
    while (*p != '\0') {
        const char *w = p;
        size_t n;
        while (*p != '\0' && isspace((unsigned char)*p)) {
            p++;
        }
        put(out, cap, &used, w, (size_t)(p - w));
        w = p;
        while (*p != '\0' && !isspace((unsigned char)*p)) {
            p++;
        }
        n = (size_t)(p - w);
        if (n == 0) {
            break;
        }
        if (hide_next) {
            put(out, cap, &used, REDACTED, strlen(REDACTED));
        } else {
            put(out, cap, &used, w, n);
        }
        hide_next = password_flag(w, n);
    }
}

void sp_redact_value(const char *in, char *out, size_t outlen)
{
    char a[BUF];
    char b[BUF];

    if (outlen == 0) {
        return;
    }
    redact_urls(in != NULL ? in : "", a, sizeof(a));
    redact_pairs(a, b, sizeof(b));
    redact_args(b, a, sizeof(a));
    snprintf(out, outlen, "%s", a);
}
