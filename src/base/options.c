/* Generic option parser over a table of sp_opt_def_t. Accepts -x VALUE, -xVALUE, --name VALUE
 * and --name=VALUE; a flag takes no value; positional arguments go to the SP_OPT_ARGS row. */
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

/* The one rule set every table follows (docs/ARCHITECTURE.md, "options"):
 * - a value given on the command line lies in [min, max]; a table's default may lie outside
 *   it, and then it is the "not given" sentinel (--pp's 0: world / (tp x dp)), which the user
 *   cannot spell: a count that must be positive has min 1, and an explicit 0 is refused;
 * - an empty value is never a value (-O "", --model "", -c "");
 * - numbers are whole decimal numbers for INT rows, finite for DOUBLE rows, sizes with K/M/G. */
static int is_sentinel(const sp_opt_def_t *d, const char *value)
{
    return d->default_value != NULL && strcmp(value, d->default_value) == 0;
}

/* SP_OPT_SET: "all" or a comma list of names. */
static sp_status_t set_mask(const sp_opt_def_t *d, void *opts, const char *value, char *err,
                            size_t errlen)
{
    uint32_t mask = 0;
    const char *p = value;
    char names[512];

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

static sp_status_t set_value(const sp_opt_def_t *d, void *opts, const char *value,
                             int from_default, char *err, size_t errlen)
{
    char *end;
    char names[512];
    /* the default (and only the default) may be the out-of-range sentinel */
    int check_range = !(from_default && is_sentinel(d, value));

    if (!from_default && d->kind != SP_OPT_FLAG && value[0] == '\0') {
        snprintf(err, errlen, "--%s: empty value (%s expected)", d->long_name,
                 d->metavar != NULL ? d->metavar : "a value");
        return SP_ERR_INVALID;
    }
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
        if (check_range && !in_range(d, (double)v)) {
            snprintf(err, errlen, "--%s: %ld is out of range [%.0f, %.0f]%s", d->long_name, v,
                     d->min, d->max,
                     is_sentinel(d, value) ? " (leave the option out for its default)" : "");
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
        if (check_range && !in_range(d, v)) {
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
        if (check_range && !in_range(d, (double)v)) {
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
    case SP_OPT_SET:
        return set_mask(d, opts, value, err, errlen);
    case SP_OPT_ARGS:
    case SP_OPT_MARK:
        break; /* positional and marks are set by the parser itself */
    }
    snprintf(err, errlen, "--%s: internal error: unknown option kind", d->long_name);
    return SP_ERR_INVALID;
}

sp_status_t sp_opts_defaults(const sp_opt_table_t *table, void *opts, char *err, size_t errlen)
{
    for (int i = 0; i < table->ndefs; i++) {
        const sp_opt_def_t *d = &table->defs[i];
        sp_status_t status;

        if (d->kind == SP_OPT_FLAG || d->kind == SP_OPT_MARK || d->kind == SP_OPT_ARGS ||
            d->default_value == NULL) {
            continue;
        }
        status = set_value(d, opts, d->default_value, 1, err, errlen);
        if (status != SP_OK) {
            return status;
        }
    }
    return SP_OK;
}

/* Rows named on the command line; the positional row has no name there. */
static int is_named(const sp_opt_def_t *d)
{
    return d->kind != SP_OPT_ARGS;
}

static const sp_opt_def_t *find_long(const sp_opt_table_t *table, const char *name, size_t len)
{
    for (int i = 0; i < table->ndefs; i++) {
        if (is_named(&table->defs[i]) && strlen(table->defs[i].long_name) == len &&
            strncmp(table->defs[i].long_name, name, len) == 0) {
            return &table->defs[i];
        }
    }
    return NULL;
}

static const sp_opt_def_t *find_short(const sp_opt_table_t *table, char c)
{
    for (int i = 0; i < table->ndefs; i++) {
        if (is_named(&table->defs[i]) && table->defs[i].short_name == c) {
            return &table->defs[i];
        }
    }
    return NULL;
}

static const sp_opt_def_t *find_kind(const sp_opt_table_t *table, sp_opt_kind_t kind)
{
    for (int i = 0; i < table->ndefs; i++) {
        if (table->defs[i].kind == kind) {
            return &table->defs[i];
        }
    }
    return NULL;
}

/* One positional argument: appended to the table's SP_OPT_ARGS row, else an error. */
static sp_status_t add_positional(const sp_opt_table_t *table, void *opts, char *arg, char *err,
                                  size_t errlen)
{
    const sp_opt_def_t *d = find_kind(table, SP_OPT_ARGS);
    sp_opt_args_t *args = d != NULL ? (sp_opt_args_t *)FIELD(opts, d) : NULL;

    if (args == NULL) {
        snprintf(err, errlen, "unexpected argument '%s' (see 'scaleprobe %s --help')", arg,
                 table->command);
        return SP_ERR_INVALID;
    }
    if (arg[0] == '\0') {
        snprintf(err, errlen, "an empty %s argument", d->metavar);
        return SP_ERR_INVALID;
    }
    if (args->v == NULL || args->n >= args->cap) {
        snprintf(err, errlen, "too many %s arguments (see 'scaleprobe %s --help')", d->metavar,
                 table->command);
        return SP_ERR_INVALID;
    }
    args->v[args->n++] = arg;
    return SP_OK;
}

/* The number of positional arguments parsed so far (0 without a positional row). */
static int positional_count(const sp_opt_table_t *table, const void *opts)
{
    const sp_opt_def_t *d = find_kind(table, SP_OPT_ARGS);

    return d != NULL ? ((const sp_opt_args_t *)((const char *)opts + d->offset))->n : 0;
}

/* Which row argv[*a] names, and its value (NULL when it takes none or it is the next argument,
 * which is consumed). shown is how the user spelled the name, for messages. */
static sp_status_t lookup(const sp_opt_table_t *table, int argc, char **argv, int *a,
                          const sp_opt_def_t **d_p, const char **value_p, char *shown,
                          size_t shownlen, char *err, size_t errlen)
{
    const char *arg = argv[*a];
    const sp_opt_def_t *d;
    const char *value;

    if (arg[1] == '-') {
        const char *eq = strchr(arg + 2, '=');
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        d = find_long(table, arg + 2, len);
        value = eq ? eq + 1 : NULL;
        snprintf(shown, shownlen, "--%.*s", (int)len, arg + 2);
    } else {
        d = find_short(table, arg[1]);
        value = arg[2] != '\0' ? arg + 2 : NULL;
        snprintf(shown, shownlen, "-%c", arg[1]);
    }
    if (d == NULL) {
        snprintf(err, errlen, "unknown option '%s' (see 'scaleprobe %s --help')", shown,
                 table->command);
        return SP_ERR_INVALID;
    }
    if (d->kind == SP_OPT_FLAG || d->kind == SP_OPT_MARK) {
        if (value != NULL) {
            snprintf(err, errlen, "%s takes no value", shown);
            return SP_ERR_INVALID;
        }
    } else if (value == NULL) {
        if (*a + 1 >= argc) {
            snprintf(err, errlen, "%s needs a value (%s)", shown, d->metavar);
            return SP_ERR_INVALID;
        }
        value = argv[++*a];
    }
    *d_p = d;
    *value_p = value;
    return SP_OK;
}

/* A mark records its place among the positional arguments; given twice is ambiguous. */
static sp_status_t set_mark(const sp_opt_table_t *table, const sp_opt_def_t *d, void *opts,
                            const char *shown, char *err, size_t errlen)
{
    int *mark = (int *)FIELD(opts, d);

    if (*mark != 0) {
        snprintf(err, errlen, "%s given twice", shown);
        return SP_ERR_INVALID;
    }
    *mark = 1 + positional_count(table, opts);
    return SP_OK;
}

sp_status_t sp_opts_parse(const sp_opt_table_t *table, int argc, char **argv, int first,
                          void *opts, int *help_p, unsigned char *seen, char *err, size_t errlen)
{
    sp_status_t status;
    int only_positional = 0;

    *help_p = 0;
    err[0] = '\0';
    status = sp_opts_defaults(table, opts, err, errlen);
    if (seen != NULL) {
        memset(seen, 0, (size_t)table->ndefs);
    }
    for (int a = first; a < argc && status == SP_OK; a++) {
        const sp_opt_def_t *d = NULL;
        const char *value = NULL;
        char shown[64];

        if (!only_positional && strcmp(argv[a], "--") == 0 &&
            find_kind(table, SP_OPT_ARGS) != NULL) {
            only_positional = 1;
            continue;
        }
        /* without a positional row, "--" is refused as any stray argument */
        if (only_positional || argv[a][0] != '-' || argv[a][1] == '\0' ||
            strcmp(argv[a], "--") == 0) {
            status = add_positional(table, opts, argv[a], err, errlen);
            continue;
        }
        if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) {
            *help_p = 1;
            return SP_OK;
        }
        status = lookup(table, argc, argv, &a, &d, &value, shown, sizeof(shown), err, errlen);
        if (status == SP_OK) {
            status = d->kind == SP_OPT_MARK ? set_mark(table, d, opts, shown, err, errlen)
                                            : set_value(d, opts, value, 0, err, errlen);
        }
        if (status == SP_OK && seen != NULL) {
            seen[d - table->defs] = 1;
        }
    }
    return status;
}

void sp_opts_format(const sp_opt_def_t *d, const void *opts, char *out, size_t outlen)
{
    const char *field = (const char *)opts + d->offset;

    switch (d->kind) {
    case SP_OPT_FLAG:
    case SP_OPT_MARK:
        snprintf(out, outlen, "%d", *(const int *)field);
        break;
    case SP_OPT_ARGS: {
        const sp_opt_args_t *args = (const sp_opt_args_t *)field;
        size_t used = 0;
        out[0] = '\0';
        for (int i = 0; i < args->n && used < outlen; i++) {
            used += (size_t)snprintf(out + used, outlen - used, "%s%s", i ? " " : "", args->v[i]);
        }
        break;
    }
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

/* Whether a numeric row's default lies outside its range (the "not given" sentinel, which its
 * help describes in words). */
static int default_is_sentinel(const sp_opt_def_t *d)
{
    char *end;
    double v;

    if ((d->kind != SP_OPT_INT && d->kind != SP_OPT_DOUBLE && d->kind != SP_OPT_SIZE) ||
        d->min > d->max) {
        return 0;
    }
    v = strtod(d->default_value, &end);
    return end != d->default_value && !in_range(d, v);
}

/* The names of a CHOICE/SET row whose help ends in ':' (see sp_opt_def_t.names). */
static void print_names(const sp_opt_def_t *d, FILE *out)
{
    size_t len = strlen(d->help);

    if ((d->kind != SP_OPT_SET && d->kind != SP_OPT_CHOICE) || d->names == NULL || len == 0 ||
        d->help[len - 1] != ':') {
        return;
    }
    fprintf(out, d->kind == SP_OPT_SET ? " all, or a comma list of" : " one of");
    for (int i = 0; i < d->nnames; i++) {
        fprintf(out, "%s %s", i > 0 ? "," : "", d->names[i]);
    }
}

void sp_opts_help(const sp_opt_table_t *table, FILE *out)
{
    const sp_opt_def_t *pos = find_kind(table, SP_OPT_ARGS);

    fprintf(out, "usage: scaleprobe %s [options]%s%s%s\n%s\n\n", table->command,
            pos != NULL ? " " : "", pos != NULL ? pos->metavar : "",
            pos != NULL && pos->max != 1 ? "..." : "", table->summary);
    if (pos != NULL) {
        fprintf(out, "arguments:\n  %-30s %s\n\n", pos->metavar, pos->help);
    }
    fprintf(out, "options:\n");
    for (int i = 0; i < table->ndefs; i++) {
        const sp_opt_def_t *d = &table->defs[i];
        char head[64];

        if (!is_named(d)) {
            continue;
        }
        if (d->short_name) {
            snprintf(head, sizeof(head), "-%c, --%s%s%s", d->short_name, d->long_name,
                     d->metavar ? " " : "", d->metavar ? d->metavar : "");
        } else {
            snprintf(head, sizeof(head), "    --%s%s%s", d->long_name, d->metavar ? " " : "",
                     d->metavar ? d->metavar : "");
        }
        fprintf(out, "  %-30s %s", head, d->help);
        print_names(d, out);
        if (d->default_value != NULL && d->kind != SP_OPT_FLAG &&
            !default_is_sentinel(d)) {
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
