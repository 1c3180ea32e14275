/* Generic option parser over a table of sp_opt_def_t. Accepts -x VALUE, -xVALUE, --name VALUE
 * and --name=VALUE; a flag takes no value. */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FIELD(opts, d) ((char *)(opts) + (d)->offset)

sp_status_t sp_parse_size(const char *text, uint64_t *bytes_p)
{
    char *end;
    double value;
    double units = 1.0;

    if (text == NULL || *text == '\0') {
        return SP_ERR_INVALID;
    }
    errno = 0;
    value = strtod(text, &end);
    if (end == text || errno != 0 || !(value >= 0.0)) {
        return SP_ERR_INVALID;
    }
    switch (*end) {
    case '\0':
    case 'B':
    case 'b':
        break;
    case 'k':
    case 'K':
        units = 1024.0;
        end++;
        break;
    case 'm':
    case 'M':
        units = 1024.0 * 1024.0;
        end++;
        break;
    case 'g':
    case 'G':
        units = 1024.0 * 1024.0 * 1024.0;
        end++;
        break;
    default:
        return SP_ERR_INVALID;
    }
    /* accept a trailing B (8KB, 1MB), nothing else */
    if (*end == 'B' || *end == 'b') {
        end++;
    }
    /* a byte count is whole: 1.5K is 1536, but 1.5 (bytes) is refused */
    if (*end != '\0' || value * units > 1.8e19 || value * units != floor(value * units)) {
        return SP_ERR_INVALID;
    }
    *bytes_p = (uint64_t)(value * units);
    return SP_OK;
}

void sp_format_size(uint64_t bytes, char *out, size_t outlen)
{
    static const char suffix[] = {'G', 'M', 'K'};
    static const uint64_t unit[] = {1ull << 30, 1ull << 20, 1ull << 10};

    for (int i = 0; i < 3; i++) {
        if (bytes >= unit[i] && bytes % (unit[i] / 4) == 0) {
            double v = (double)bytes / (double)unit[i];
            if (bytes % unit[i] == 0) {
                snprintf(out, outlen, "%llu%c", (unsigned long long)(bytes / unit[i]), suffix[i]);
            } else {
                snprintf(out, outlen, "%.17g%c", v, suffix[i]);
            }
            return;
        }
    }
    snprintf(out, outlen, "%llu", (unsigned long long)bytes);
}

static int find_name(const sp_opt_def_t *d, const char *name, size_t len)
{
    for (int i = 0; i < d->nnames; i++) {
        if (strlen(d->names[i]) == len && strncmp(d->names[i], name, len) == 0) {
            return i;
        }
    }
    return -1;
}

static void list_names(const sp_opt_def_t *d, char *out, size_t outlen)
{
    size_t used = 0;

    out[0] = '\0';
    for (int i = 0; i < d->nnames && used < outlen; i++) {
        used += (size_t)snprintf(out + used, outlen - used, "%s%s", i ? ", " : "", d->names[i]);
    }
}

static int in_range(const sp_opt_def_t *d, double v)
{
    return d->min > d->max || (v >= d->min && v <= d->max);
}

static sp_status_t set_value(const sp_opt_def_t *d, void *opts, const char *value, char *err,
                             size_t errlen)
{
    char *end;
    char names[512];

    switch (d->kind) {
    case SP_OPT_FLAG:
        *(int *)FIELD(opts, d) = 1;
        return SP_OK;
    case SP_OPT_INT: {
        long v;
        errno = 0;
        v = strtol(value, &end, 10);
        if (end == value || *end != '\0' || errno != 0) {
            snprintf(err, errlen, "--%s: '%s' is not an integer", d->long_name, value);
            return SP_ERR_INVALID;
        }
        if (!in_range(d, (double)v)) {
            snprintf(err, errlen, "--%s: %ld is out of range [%.0f, %.0f]", d->long_name, v,
                     d->min, d->max);
            return SP_ERR_INVALID;
        }
        *(long *)FIELD(opts, d) = v;
        return SP_OK;
    }
    case SP_OPT_DOUBLE: {
        double v;
        errno = 0;
        v = strtod(value, &end);
        if (end == value || *end != '\0' || errno != 0 || !isfinite(v)) {
            snprintf(err, errlen, "--%s: '%s' is not a number", d->long_name, value);
            return SP_ERR_INVALID;
        }
        if (!in_range(d, v)) {
            snprintf(err, errlen, "--%s: %g is out of range [%g, %g]", d->long_name, v, d->min,
                     d->max);
            return SP_ERR_INVALID;
        }
        *(double *)FIELD(opts, d) = v;
        return SP_OK;
    }
    case SP_OPT_SIZE: {
        uint64_t v;
        if (sp_parse_size(value, &v) != SP_OK) {
            snprintf(err, errlen, "--%s: '%s' is not a size (examples: 8, 64K, 1.5M, 8G)",
                     d->long_name, value);
            return SP_ERR_INVALID;
        }
        if (!in_range(d, (double)v)) {
            snprintf(err, errlen, "--%s: %s is out of range [%g, %g] bytes", d->long_name, value,
                     d->min, d->max);
            return SP_ERR_INVALID;
        }
        *(uint64_t *)FIELD(opts, d) = v;
        return SP_OK;
    }
    case SP_OPT_STRING:
        if (strlen(value) >= SP_OPT_STRLEN) {
            snprintf(err, errlen, "--%s: value is longer than %d characters", d->long_name,
                     SP_OPT_STRLEN - 1);
            return SP_ERR_INVALID;
        }
        strcpy(FIELD(opts, d), value);
        return SP_OK;
    case SP_OPT_CHOICE: {
        int i = find_name(d, value, strlen(value));
        if (i < 0) {
            list_names(d, names, sizeof(names));
            snprintf(err, errlen, "--%s: unknown value '%s' (one of: %s)", d->long_name, value,
                     names);
            return SP_ERR_INVALID;
        }
        *(int *)FIELD(opts, d) = i;
        return SP_OK;
    }
    case SP_OPT_SET: {
        uint32_t mask = 0;
        const char *p = value;
        if (strcmp(value, "all") == 0) {
            *(uint32_t *)FIELD(opts, d) = (uint32_t)((1ull << d->nnames) - 1);
            return SP_OK;
        }
        for (;;) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            int i = find_name(d, p, len);
            if (i < 0) {
                list_names(d, names, sizeof(names));
                snprintf(err, errlen, "--%s: unknown value '%.*s' (all, or a comma list of: %s)",
                         d->long_name, (int)len, p, names);
                return SP_ERR_INVALID;
            }
            mask |= 1u << i;
            if (comma == NULL) {
                break;
            }
            p = comma + 1;
        }
        *(uint32_t *)FIELD(opts, d) = mask;
        return SP_OK;
    }
    }
    snprintf(err, errlen, "--%s: internal error: unknown option kind", d->long_name);
    return SP_ERR_INVALID;
}

sp_status_t sp_opts_defaults(const sp_opt_table_t *table, void *opts, char *err, size_t errlen)
{
    for (int i = 0; i < table->ndefs; i++) {
        const sp_opt_def_t *d = &table->defs[i];
        sp_status_t status;

        if (d->kind == SP_OPT_FLAG || d->default_value == NULL) {
            continue;
        }
        status = set_value(d, opts, d->default_value, err, errlen);
        if (status != SP_OK) {
            return status;
        }
    }
    return SP_OK;
}

static const sp_opt_def_t *find_long(const sp_opt_table_t *table, const char *name, size_t len)
{
    for (int i = 0; i < table->ndefs; i++) {
        if (strlen(table->defs[i].long_name) == len &&
            strncmp(table->defs[i].long_name, name, len) == 0) {
            return &table->defs[i];
        }
    }
    return NULL;
}

static const sp_opt_def_t *find_short(const sp_opt_table_t *table, char c)
{
    for (int i = 0; i < table->ndefs; i++) {
        if (table->defs[i].short_name == c) {
            return &table->defs[i];
        }
    }
    return NULL;
}

sp_status_t sp_opts_parse(const sp_opt_table_t *table, int argc, char **argv, int first,
                          void *opts, int *help_p, unsigned char *seen, char *err, size_t errlen)
{
    sp_status_t status;

    *help_p = 0;
    err[0] = '\0';
    status = sp_opts_defaults(table, opts, err, errlen);
    if (status != SP_OK) {
        return status;
    }
    if (seen != NULL) {
        memset(seen, 0, (size_t)table->ndefs);
    }
    for (int a = first; a < argc; a++) {
        const char *arg = argv[a];
        const sp_opt_def_t *d = NULL;
        const char *value = NULL;
        char shown[64];

        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            *help_p = 1;
            return SP_OK;
        }
        if (strncmp(arg, "--", 2) == 0 && arg[2] != '\0') {
            const char *eq = strchr(arg + 2, '=');
            size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
            d = find_long(table, arg + 2, len);
            value = eq ? eq + 1 : NULL;
            snprintf(shown, sizeof(shown), "--%.*s", (int)len, arg + 2);
        } else if (arg[0] == '-' && arg[1] != '\0' && arg[1] != '-') {
            d = find_short(table, arg[1]);
            value = arg[2] != '\0' ? arg + 2 : NULL;
            snprintf(shown, sizeof(shown), "-%c", arg[1]);
        } else {
            snprintf(err, errlen, "unexpected argument '%s' (see 'scaleprobe %s --help')", arg,
                     table->command);
            return SP_ERR_INVALID;
        }
        if (d == NULL) {
            snprintf(err, errlen, "unknown option '%s' (see 'scaleprobe %s --help')", shown,
                     table->command);
            return SP_ERR_INVALID;
        }
        if (d->kind == SP_OPT_FLAG) {
            if (value != NULL) {
                snprintf(err, errlen, "%s takes no value", shown);
                return SP_ERR_INVALID;
            }
        } else if (value == NULL) {
            if (a + 1 >= argc) {
                snprintf(err, errlen, "%s needs a value (%s)", shown, d->metavar);
                return SP_ERR_INVALID;
            }
            value = argv[++a];
        }
        status = set_value(d, opts, value, err, errlen);
        if (status != SP_OK) {
            return status;
        }
        if (seen != NULL) {
            seen[d - table->defs] = 1;
        }
    }
    return SP_OK;
}

void sp_opts_format(const sp_opt_def_t *d, const void *opts, char *out, size_t outlen)
{
    const char *field = (const char *)opts + d->offset;

    switch (d->kind) {
    case SP_OPT_FLAG:
        snprintf(out, outlen, "%d", *(const int *)field);
        break;
    case SP_OPT_INT:
        snprintf(out, outlen, "%ld", *(const long *)field);
        break;
    case SP_OPT_DOUBLE:
        snprintf(out, outlen, "%.17g", *(const double *)field);
        break;
    case SP_OPT_SIZE:
        snprintf(out, outlen, "%llu", (unsigned long long)*(const uint64_t *)field);
        break;
    case SP_OPT_STRING:
        snprintf(out, outlen, "%s", field);
        break;
    case SP_OPT_CHOICE: {
        int i = *(const int *)field;
        snprintf(out, outlen, "%s", i >= 0 && i < d->nnames ? d->names[i] : "?");
        break;
    }
    case SP_OPT_SET: {
        uint32_t mask = *(const uint32_t *)field;
        size_t used = 0;
        out[0] = '\0';
        for (int i = 0; i < d->nnames && used < outlen; i++) {
            if (mask & (1u << i)) {
                used += (size_t)snprintf(out + used, outlen - used, "%s%s", used ? "," : "",
                                         d->names[i]);
            }
        }
        break;
    }
    }
}

void sp_opts_help(const sp_opt_table_t *table, FILE *out)
{
    fprintf(out, "usage: scaleprobe %s [options]\n%s\n\noptions:\n", table->command,
            table->summary);
    for (int i = 0; i < table->ndefs; i++) {
        const sp_opt_def_t *d = &table->defs[i];
        char head[64];

        if (d->short_name) {
            snprintf(head, sizeof(head), "-%c, --%s%s%s", d->short_name, d->long_name,
                     d->metavar ? " " : "", d->metavar ? d->metavar : "");
        } else {
            snprintf(head, sizeof(head), "    --%s%s%s", d->long_name, d->metavar ? " " : "",
                     d->metavar ? d->metavar : "");
        }
        fprintf(out, "  %-30s %s", head, d->help);
        if (d->default_value != NULL && d->kind != SP_OPT_FLAG) {
            fprintf(out, " [%s]", d->default_value);
        }
        fputc('\n', out);
    }
    fprintf(out, "  %-30s %s\n", "-h, --help", "show this help");
}

uint64_t sp_opts_hash(const sp_opt_table_t *table, const void *opts)
{
    uint64_t h = 1469598103934665603ull;
    char buf[SP_OPT_STRLEN + 64];

    for (int i = 0; i < table->ndefs; i++) {
        sp_opts_format(&table->defs[i], opts, buf, sizeof(buf));
        for (const char *p = buf; *p; p++) {
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
        }
        h = (h ^ 0xff) * 1099511628211ull;
    }
    return h;
}
