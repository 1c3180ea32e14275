/* Split groups: nccl-tests' NCCL_TESTS_SPLIT grammar plus `node` and `rail`, the color of a
 * rank, the checks of the groups, and which group of a point is slow (coll_split.h). */
#include "coll_split.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FORMS "AND n, OR n, MOD n, DIV n (or & | %% /), a bare integer mask, node or rail"

static const struct {
    const char *word;
    char symbol;
    sp_split_kind_t kind;
} ops[] = {
    {"AND", '&', SP_SPLIT_AND},
    {"OR", '|', SP_SPLIT_OR},
    {"MOD", '%', SP_SPLIT_MOD},
    {"DIV", '/', SP_SPLIT_DIV},
};

/* A non-negative integer (decimal, 0x hex, 0 octal) filling all of s up to trailing blanks. */
static int parse_value(const char *s, unsigned long *v_p)
{
    char *end = NULL;
    unsigned long v;

    while (isspace((unsigned char)*s)) {
        s++;
    }
    if (!isdigit((unsigned char)*s)) {
        return -1; /* also refuses a sign: strtoul would wrap "-1" */
    }
    errno = 0;
    v = strtoul(s, &end, 0);
    while (isspace((unsigned char)*end)) {
        end++;
    }
    if (errno != 0 || *end != '\0' || v > INT_MAX) {
        return -1;
    }
    *v_p = v;
    return 0;
}

/* The operator at the start of s: its kind, and where its operand starts; -1 when none. */
static int parse_op(const char *s, sp_split_kind_t *kind_p, const char **rest_p)
{
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        size_t n = strlen(ops[i].word);
        if (s[0] == ops[i].symbol) {
            *kind_p = ops[i].kind;
            *rest_p = s + 1;
            return 0;
        }
        if (strncasecmp(s, ops[i].word, n) == 0 && !isalpha((unsigned char)s[n])) {
            *kind_p = ops[i].kind;
            *rest_p = s + n;
            return 0;
        }
    }
    return -1;
}

sp_status_t sp_split_parse(const char *spec, sp_split_t *split_p, char *err, size_t errlen)
{
    sp_split_t sp = {SP_SPLIT_NONE, 0};
    const char *s = spec;
    const char *rest = NULL;

    while (isspace((unsigned char)*s)) {
        s++;
    }
    if (*s == '\0' || strcasecmp(s, "none") == 0) {
        *split_p = sp;
        return SP_OK;
    }
    if (strcasecmp(s, "node") == 0 || strcasecmp(s, "rail") == 0) {
        sp.kind = tolower((unsigned char)s[0]) == 'n' ? SP_SPLIT_NODE : SP_SPLIT_RAIL;
    } else if (isdigit((unsigned char)*s)) {
        sp.kind = SP_SPLIT_AND;
        if (parse_value(s, &sp.value) != 0) {
            snprintf(err, errlen,
                     "--split '%.64s': not a mask (an integer up to %d); accepted: " FORMS, spec,
                     INT_MAX);
            return SP_ERR_INVALID;
        }
    } else if (parse_op(s, &sp.kind, &rest) != 0) {
        snprintf(err, errlen, "--split '%.64s': unknown split; accepted: " FORMS, spec);
        return SP_ERR_INVALID;
    } else if (parse_value(rest, &sp.value) != 0) {
        snprintf(err, errlen,
                 "--split '%.64s': the operator needs a non-negative integer "
                 "operand up to %d (as 'MOD 8'); accepted: " FORMS,
                 spec, INT_MAX);
        return SP_ERR_INVALID;
    }
    if ((sp.kind == SP_SPLIT_MOD || sp.kind == SP_SPLIT_DIV) && sp.value == 0) {
        snprintf(err, errlen, "--split '%.64s': %s by 0 is undefined", spec,
                 sp.kind == SP_SPLIT_MOD ? "modulo" : "division");
        return SP_ERR_INVALID;
    }
    *split_p = sp;
    return SP_OK;
}

void sp_split_format(const sp_split_t *split, char *buf, size_t len)
{
    switch (split->kind) {
    case SP_SPLIT_AND:
    case SP_SPLIT_OR:
    case SP_SPLIT_MOD:
    case SP_SPLIT_DIV:
        snprintf(buf, len, "%s %lu", ops[split->kind - SP_SPLIT_AND].word, split->value);
        break;
    case SP_SPLIT_NODE:
        snprintf(buf, len, "node");
        break;
    case SP_SPLIT_RAIL:
        snprintf(buf, len, "rail");
        break;
    default:
        snprintf(buf, len, "none");
        break;
    }
}

int sp_split_needs_topology(const sp_split_t *split)
{
    return split->kind == SP_SPLIT_NODE || split->kind == SP_SPLIT_RAIL;
}

long sp_split_color(const sp_split_t *split, int rank, int node, int local_rank)
{
    unsigned long r = (unsigned long)rank;

    switch (split->kind) {
    case SP_SPLIT_AND:
        return (long)(r & split->value);
    case SP_SPLIT_OR:
        return (long)(r | split->value);
    case SP_SPLIT_MOD:
        return (long)(r % split->value);
    case SP_SPLIT_DIV:
        return (long)(r / split->value);
    case SP_SPLIT_NODE:
        return node;
    case SP_SPLIT_RAIL:
        return local_rank;
    default:
        return 0;
    }
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a;
    long y = *(const long *)b;

    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The lowest rank of color c. */
static int first_of(const long *colors, int nranks, long c)
{
    int r = 0;

    while (r < nranks - 1 && colors[r] != c) {
        r++;
    }
    return r;
}

sp_status_t sp_split_check(const sp_split_t *split, const long *colors, int nranks, int *ngroups_p,
                           int sizes_p[2], char *err, size_t errlen)
{
    char name[32];
    long *sorted = malloc((size_t)(nranks > 0 ? nranks : 1) * sizeof(*sorted));
    int ngroups = 0;
    sp_status_t status = SP_OK;

    if (sorted == NULL) {
        snprintf(err, errlen, "out of memory");
        return SP_ERR_NOMEM;
    }
    sp_split_format(split, name, sizeof(name));
    memcpy(sorted, colors, (size_t)nranks * sizeof(*sorted));
    qsort(sorted, (size_t)nranks, sizeof(*sorted), cmp_long);
    sizes_p[0] = nranks;
    sizes_p[1] = 0;
    for (int i = 0; i < nranks && status == SP_OK;) {
        int size = 1;
        while (i + size < nranks && sorted[i + size] == sorted[i]) {
            size++;
        }
        ngroups++;
        if (size < 2) {
            snprintf(err, errlen,
                     "--split %s: rank %d is alone in its group (color %ld): a "
                     "collective over one rank moves no data, so that group has no bandwidth; "
                     "choose a split whose groups have at least 2 ranks",
                     name, first_of(colors, nranks, sorted[i]), sorted[i]);
            status = SP_ERR_INVALID;
        }
        sizes_p[0] = size < sizes_p[0] ? size : sizes_p[0];
        sizes_p[1] = size > sizes_p[1] ? size : sizes_p[1];
        i += size;
    }
    free(sorted);
    if (status == SP_OK && ngroups < 2) {
        snprintf(err, errlen,
                 "--split %s puts all %d ranks in one group: there is nothing to "
                 "compare it with (drop --split, or split into at least 2 groups)",
                 name, nranks);
        status = SP_ERR_INVALID;
    }
    *ngroups_p = ngroups;
    return status;
}

sp_status_t sp_split_check_root(const sp_split_t *split, long root, int min_size, char *err,
                                size_t errlen)
{
    char name[32];

    if (root < min_size) {
        return SP_OK;
    }
    sp_split_format(split, name, sizeof(name));
    snprintf(err, errlen,
             "--root %ld is not a rank of every group of --split %s (the smallest "
             "has %d ranks; a root is a rank within its group)",
             root, name, min_size);
    return SP_ERR_INVALID;
}

void sp_split_verdict(const sp_coll_group_row_t *groups, int n, double threshold,
                      sp_split_verdict_t *v_p)
{
    sp_split_verdict_t v = {0, -1, 1.0, 0};
    int nothers = n - 1;
    int want = (nothers - 1) / 2; /* the lower median's place among the others, by time */

    for (int g = 1; g < n; g++) {
        if (groups[g].time_us > groups[v.slowest].time_us) {
            v.slowest = g;
        }
    }
    /* the median of the others: the group with exactly `want` others faster (ties by index) */
    for (int g = 0; g < n && v.reference < 0; g++) {
        int below = 0;
        if (g == v.slowest) {
            continue;
        }
        for (int h = 0; h < n; h++) {
            if (h != v.slowest && h != g &&
                (groups[h].time_us < groups[g].time_us ||
                 (groups[h].time_us == groups[g].time_us && h < g))) {
                below++;
            }
        }
        v.reference = below == want ? g : -1;
    }
    if (v.reference >= 0) {
        const sp_coll_group_row_t *s = &groups[v.slowest];
        const sp_coll_group_row_t *r = &groups[v.reference];
        v.ratio = s->time_us > 0.0 ? r->time_us / s->time_us : 1.0;
        v.significant = s->time_us >= (1.0 + threshold) * r->time_us && s->ci_lo_us > r->ci_hi_us;
    }
    *v_p = v;
}

void sp_split_print_point(FILE *out, const char *place, const sp_coll_group_row_t *groups, int n)
{
    sp_split_verdict_t v;

    if (n < 2) {
        return;
    }
    fprintf(out, "#   %s busbw per group (GB/s):", place);
    for (int g = 0; g < n; g++) {
        fprintf(out, " %lld:%.3g", (long long)groups[g].group, groups[g].busbw_gbps);
    }
    sp_split_verdict(groups, n, SP_SPLIT_THRESHOLD, &v);
    fprintf(out, " | slowest group %lld at %.2fx the median group's busbw: %s\n",
            (long long)groups[v.slowest].group, v.ratio, v.significant ? "slow" : "within noise");
}

/* The points of rows: [start, start + count) of each, one after another. */
static size_t next_point(const sp_coll_group_row_t *rows, size_t n, size_t start)
{
    size_t end = start;

    while (end < n && rows[end].row == rows[start].row) {
        end++;
    }
    return end;
}

void sp_split_summarize(const sp_coll_group_row_t *rows, size_t n, double threshold,
                        sp_split_summary_t *s_p)
{
    sp_split_summary_t s;
    double *ratios = calloc(n > 0 ? n : 1, sizeof(*ratios));
    int64_t best = 0;
    size_t best_count = 0;

    memset(&s, 0, sizeof(s));
    s.ratio = 1.0;
    /* which group is slow most often: one pass per candidate group (few groups) */
    for (size_t i = 0; i < n && ratios != NULL; i++) {
        size_t count = 0;
        size_t nr = 0;
        size_t points = 0;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) {
            seen = rows[j].group == rows[i].group;
        }
        for (size_t a = 0, b; a < n && !seen; a = b) {
            sp_split_verdict_t v;
            b = next_point(rows, n, a);
            if (b - a < 2) {
                continue;
            }
            points++;
            sp_split_verdict(rows + a, (int)(b - a), threshold, &v);
            if (v.significant && rows[a + (size_t)v.slowest].group == rows[i].group) {
                count++;
                ratios[nr++] = v.ratio;
            }
        }
        if (!seen && (count > best_count || (count == best_count && i == 0))) {
            best = rows[i].group;
            best_count = count;
            s.points = points;
            s.first_rank = rows[i].first_rank;
            s.nranks = rows[i].nranks;
            qsort(ratios, nr, sizeof(*ratios), cmp_double);
            s.ratio = nr > 0 ? ratios[(nr - 1) / 2] : 1.0;
        }
    }
    s.group = best;
    s.slow_points = best_count;
    s.found = best_count > 0 && 2 * best_count > s.points;
    free(ratios);
    *s_p = s;
}
