/* The spec file: cJSON parses it; cJSON keeps no positions, so the line of every object key is
 * found by a scan of the text that knows only JSON's strings (keys are strings followed by ':'),
 * and matched to the parsed tree by document order (a pre-order walk meets keys in the order
 * the text has them). */
#include "spec.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

typedef struct {
    const cJSON *item;
    int line;
} key_line_t;

typedef struct {
    key_line_t *keys;
    int nkeys, used;
    const char *path;
    char *err;
    size_t errlen;
} spec_ctx_t;

/* Lines of every key of text, in document order (keys_p owned by the caller). */
static int scan_keys(const char *text, int **lines_p)
{
    int n = 0, cap = 64, line = 1;
    int *lines = malloc((size_t)cap * sizeof(int));

    for (const char *p = text; lines != NULL && *p != '\0'; p++) {
        if (*p == '\n') {
            line++;
        } else if (*p == '"') {
            int start = line;
            for (p++; *p != '\0' && *p != '"'; p++) {
                if (*p == '\\' && p[1] != '\0') {
                    p++;
                } else if (*p == '\n') {
                    line++;
                }
            }
            if (*p == '\0') {
                break;
            }
            {
                const char *q = p + 1;
                while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n') {
                    q++;
                }
                if (*q == ':') {
                    if (n == cap) {
                        int *more = realloc(lines, (size_t)(cap *= 2) * sizeof(int));
                        if (more == NULL) {
                            free(lines);
                            return -1;
                        }
                        lines = more;
                    }
                    lines[n++] = start;
                }
            }
        }
    }
    if (lines == NULL) {
        return -1;
    }
    *lines_p = lines;
    return n;
}

static void assign_lines(const cJSON *node, const int *lines, int nlines, spec_ctx_t *sc)
{
    for (const cJSON *c = node->child; c != NULL; c = c->next) {
        if (c->string != NULL && sc->nkeys < nlines) {
            sc->keys[sc->nkeys].item = c;
            sc->keys[sc->nkeys].line = lines[sc->nkeys];
            sc->nkeys++;
        }
        assign_lines(c, lines, nlines, sc);
    }
}

static int line_of(const spec_ctx_t *sc, const cJSON *item)
{
    for (int i = 0; i < sc->nkeys; i++) {
        if (sc->keys[i].item == item) {
            return sc->keys[i].line;
        }
    }
    return 1;
}

static sp_status_t fail_at(const spec_ctx_t *sc, const cJSON *item, const char *fmt, ...)
{
    char msg[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(sc->err, sc->errlen, "%s:%d: %s", sc->path, line_of(sc, item), msg);
    return SP_ERR_INVALID;
}

static const char *type_name(const cJSON *v)
{
    return cJSON_IsNumber(v)   ? "a number"
           : cJSON_IsString(v) ? "a string"
           : cJSON_IsBool(v)   ? "a boolean"
           : cJSON_IsArray(v)  ? "a list"
           : cJSON_IsObject(v) ? "an object"
                               : "null";
}

static const char *const param_type_names[] = {"a number", "true or false", "a list of numbers",
                                               "a list of names", "a string"};

static sp_status_t parse_list(const spec_ctx_t *sc, const cJSON *v, const sp_param_def_t *pd,
                              sp_spec_val_t *out)
{
    const cJSON *e;
    int want_num = pd->type == SP_PARAM_NUMS;

    cJSON_ArrayForEach(e, v)
    {
        if (want_num ? !cJSON_IsNumber(e) : !cJSON_IsString(e)) {
            return fail_at(sc, v, "'%s' must be %s, and one entry is %s", pd->name,
                           param_type_names[pd->type], type_name(e));
        }
        if (out->nlist == SP_SPEC_MAX_LIST) {
            return fail_at(sc, v, "'%s' has more than %d entries", pd->name, SP_SPEC_MAX_LIST);
        }
        if (want_num) {
            out->list[out->nlist++] = e->valuedouble;
        } else {
            snprintf(out->names[out->nlist++], sizeof(out->names[0]), "%s", e->valuestring);
        }
    }
    return SP_OK;
}

static sp_status_t parse_param(const spec_ctx_t *sc, const cJSON *v, const sp_param_def_t *pd,
                               sp_spec_val_t *out)
{
    int ok = pd->type == SP_PARAM_NUM    ? cJSON_IsNumber(v)
             : pd->type == SP_PARAM_BOOL ? cJSON_IsBool(v)
             : pd->type == SP_PARAM_STR  ? cJSON_IsString(v)
                                         : cJSON_IsArray(v);

    if (!ok) {
        return fail_at(sc, v, "'%s' must be %s, not %s", pd->name, param_type_names[pd->type],
                       type_name(v));
    }
    out->set = 1;
    if (pd->type == SP_PARAM_NUM) {
        out->num = v->valuedouble;
    } else if (pd->type == SP_PARAM_BOOL) {
        out->num = cJSON_IsTrue(v);
    } else if (pd->type == SP_PARAM_STR) {
        snprintf(out->str, sizeof(out->str), "%s", v->valuestring);
    } else {
        return parse_list(sc, v, pd, out);
    }
    return SP_OK;
}

static void param_list(const sp_check_def_t *d, char *out, size_t len)
{
    out[0] = '\0';
    for (int p = 0; p < SP_SPEC_MAX_PARAMS && d->params[p].name != NULL; p++) {
        size_t n = strlen(out);
        snprintf(out + n, len - n, "%s%s", n > 0 ? ", " : "", d->params[p].name);
    }
}

static sp_status_t parse_severity(const spec_ctx_t *sc, const cJSON *v, sp_spec_check_t *c)
{
    if (!cJSON_IsString(v) ||
        (strcmp(v->valuestring, "fail") != 0 && strcmp(v->valuestring, "warn") != 0)) {
        return fail_at(sc, v, "'severity' must be \"fail\" or \"warn\"");
    }
    c->severity = strcmp(v->valuestring, "warn") == 0 ? SP_SEV_WARN : SP_SEV_FAIL;
    return SP_OK;
}

static sp_status_t parse_check(const spec_ctx_t *sc, const cJSON *item, sp_spec_check_t *c)
{
    int def = sp_check_find(item->string);
    const sp_check_def_t *d;
    const cJSON *v;
    int nthr = 0, nthr_defs = 0;
    char names[200];

    if (def < 0) {
        return fail_at(sc, item, "unknown check '%s' (see 'scaleprobe accept --list-checks')",
                       item->string);
    }
    d = &sp_check_defs[def];
    if (d->eval == NULL) {
        return fail_at(sc, item, "check '%s' is not available in this build: %s", d->name,
                       d->unavailable);
    }
    if (!cJSON_IsObject(item)) {
        return fail_at(sc, item, "check '%s' must be an object of thresholds, not %s", d->name,
                       type_name(item));
    }
    memset(c, 0, sizeof(*c));
    c->def = def;
    c->baseline = NAN;
    c->line = line_of(sc, item);
    param_list(d, names, sizeof(names));
    cJSON_ArrayForEach(v, item)
    {
        int p;
        if (strcmp(v->string, "severity") == 0) {
            if (parse_severity(sc, v, c) != SP_OK) {
                return SP_ERR_INVALID;
            }
            continue;
        }
        for (p = 0; p < SP_SPEC_MAX_PARAMS && d->params[p].name != NULL; p++) {
            if (strcmp(v->string, d->params[p].name) == 0) {
                break;
            }
        }
        if (p == SP_SPEC_MAX_PARAMS || d->params[p].name == NULL) {
            return fail_at(sc, v, "check '%s' has no parameter '%s' (it has: %s, severity)",
                           d->name, v->string, names);
        }
        if (parse_param(sc, v, &d->params[p], &c->val[p]) != SP_OK) {
            return SP_ERR_INVALID;
        }
        nthr += d->params[p].threshold;
    }
    for (int p = 0; p < SP_SPEC_MAX_PARAMS && d->params[p].name != NULL; p++) {
        nthr_defs += d->params[p].threshold;
    }
    if (nthr == 0 && nthr_defs > 0) {
        return fail_at(sc, item, "check '%s' has no threshold (give at least one of: %s)", d->name,
                       names);
    }
    {
        const char *why = sp_check_validate(c);
        if (why != NULL) {
            return fail_at(sc, item, "check '%s': %s", d->name, why);
        }
    }
    return SP_OK;
}

static sp_status_t parse_match(const spec_ctx_t *sc, const cJSON *m, sp_spec_type_t *t)
{
    const cJSON *v;

    if (!cJSON_IsObject(m)) {
        return fail_at(sc, m, "'match' must be an object (hosts, gpus)");
    }
    cJSON_ArrayForEach(v, m)
    {
        if (strcmp(v->string, "hosts") == 0 && cJSON_IsString(v)) {
            snprintf(t->hosts, sizeof(t->hosts), "%s", v->valuestring);
        } else if (strcmp(v->string, "gpus") == 0 && cJSON_IsNumber(v) && v->valuedouble >= 0) {
            t->gpus = v->valueint;
        } else if (strcmp(v->string, "hosts") == 0 || strcmp(v->string, "gpus") == 0) {
            return fail_at(sc, v, "'%s' must be %s", v->string,
                           v->string[0] == 'h' ? "a host name pattern" : "a GPU count >= 0");
        } else {
            return fail_at(sc, v, "unknown node type field 'match.%s' (known: hosts, gpus)",
                           v->string);
        }
    }
    return SP_OK;
}

static sp_status_t parse_type(const spec_ctx_t *sc, const cJSON *item, sp_spec_type_t *t)
{
    const cJSON *v;
    int have_checks = 0;

    if (!cJSON_IsObject(item)) {
        return fail_at(sc, item, "node type '%s' must be an object (match, checks)", item->string);
    }
    snprintf(t->name, sizeof(t->name), "%s", item->string);
    t->line = line_of(sc, item);
    snprintf(t->hosts, sizeof(t->hosts), "*");
    t->gpus = -1;
    cJSON_ArrayForEach(v, item)
    {
        if (strcmp(v->string, "match") == 0) {
            if (parse_match(sc, v, t) != SP_OK) {
                return SP_ERR_INVALID;
            }
        } else if (strcmp(v->string, "checks") == 0 && cJSON_IsObject(v)) {
            const cJSON *c;
            have_checks = 1;
            cJSON_ArrayForEach(c, v)
            {
                if (t->nchecks == SP_SPEC_MAX_CHECKS) {
                    return fail_at(sc, c, "more than %d checks", SP_SPEC_MAX_CHECKS);
                }
                if (parse_check(sc, c, &t->checks[t->nchecks++]) != SP_OK) {
                    return SP_ERR_INVALID;
                }
            }
        } else if (strcmp(v->string, "checks") == 0) {
            return fail_at(sc, v, "'checks' must be an object, not %s", type_name(v));
        } else {
            return fail_at(sc, v, "unknown node type field '%s' (known: match, checks)", v->string);
        }
    }
    if (!have_checks) {
        return fail_at(sc, item, "node type '%s' has no 'checks'", t->name);
    }
    return SP_OK;
}

static sp_status_t parse_root(const spec_ctx_t *sc, const cJSON *root, sp_spec_t *spec)
{
    const cJSON *v;
    int have_types = 0;

    if (!cJSON_IsObject(root)) {
        snprintf(sc->err, sc->errlen, "%s:1: the spec must be a JSON object", sc->path);
        return SP_ERR_INVALID;
    }
    cJSON_ArrayForEach(v, root)
    {
        if (strcmp(v->string, "repeats") == 0) {
            if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 100 ||
                v->valuedouble != (double)v->valueint) {
                return fail_at(sc, v, "'repeats' must be a whole number in [1, 100]");
            }
            spec->repeats = v->valueint;
        } else if (strcmp(v->string, "description") == 0 && cJSON_IsString(v)) {
            continue;
        } else if (strcmp(v->string, "node_types") == 0 && cJSON_IsObject(v)) {
            const cJSON *t;
            have_types = 1;
            cJSON_ArrayForEach(t, v)
            {
                if (spec->ntypes == SP_SPEC_MAX_TYPES) {
                    return fail_at(sc, t, "more than %d node types", SP_SPEC_MAX_TYPES);
                }
                if (parse_type(sc, t, &spec->types[spec->ntypes++]) != SP_OK) {
                    return SP_ERR_INVALID;
                }
            }
        } else if (strcmp(v->string, "node_types") == 0 || strcmp(v->string, "description") == 0) {
            return fail_at(sc, v, "'%s' has the wrong type (%s)", v->string, type_name(v));
        } else {
            return fail_at(sc, v, "unknown key '%s' (known: description, repeats, node_types)",
                           v->string);
        }
    }
    if (!have_types || spec->ntypes == 0) {
        snprintf(sc->err, sc->errlen, "%s:1: the spec has no node types ('node_types')", sc->path);
        return SP_ERR_INVALID;
    }
    return SP_OK;
}

static int line_at(const char *text, const char *pos)
{
    int line = 1;

    for (const char *p = text; *p != '\0' && p < pos; p++) {
        line += *p == '\n';
    }
    return line;
}

sp_status_t sp_spec_parse(const char *text, const char *path, sp_spec_t *spec, char *err,
                          size_t errlen)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    spec_ctx_t sc = {.path = path, .err = err, .errlen = errlen};
    int *lines = NULL;
    int nlines;
    sp_status_t status;

    memset(spec, 0, sizeof(*spec));
    snprintf(spec->path, sizeof(spec->path), "%s", path);
    spec->repeats = 1;
    if (root == NULL) {
        /* cJSON leaves the position where parsing stopped */
        const char *at = cJSON_GetErrorPtr();
        snprintf(err, errlen, "%s:%d: not valid JSON", path, at != NULL ? line_at(text, at) : 1);
        return SP_ERR_INVALID;
    }
    nlines = scan_keys(text, &lines);
    sc.keys = nlines > 0 ? calloc((size_t)nlines, sizeof(*sc.keys)) : NULL;
    if (nlines < 0 || (nlines > 0 && sc.keys == NULL)) {
        snprintf(err, errlen, "%s: out of memory", path);
        status = SP_ERR_NOMEM;
        goto out;
    }
    assign_lines(root, lines, nlines, &sc);
    status = parse_root(&sc, root, spec);
out:
    free(sc.keys);
    free(lines);
    cJSON_Delete(root);
    return status;
}

sp_status_t sp_spec_load(const char *path, sp_spec_t *spec, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *text;
    long n;
    sp_status_t status;

    if (f == NULL) {
        snprintf(err, errlen, "cannot read spec %s: %s", path, strerror(errno));
        return SP_ERR_INVALID;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || n > (1 << 20) ||
        fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        snprintf(err, errlen, "spec %s: not a regular file under 1 MiB", path);
        return SP_ERR_INVALID;
    }
    text = malloc((size_t)n + 1);
    if (text == NULL || fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        fclose(f);
        snprintf(err, errlen, "cannot read spec %s", path);
        return SP_ERR_INVALID;
    }
    fclose(f);
    text[n] = '\0';
    status = sp_spec_parse(text, path, spec, err, errlen);
    free(text);
    return status;
}

int sp_spec_match(const sp_spec_t *spec, const char *host, int ngpus)
{
    for (int t = 0; t < spec->ntypes; t++) {
        const sp_spec_type_t *ty = &spec->types[t];
        if (fnmatch(ty->hosts, host, 0) == 0 &&
            (ty->gpus < 0 || ty->gpus == (ngpus < 0 ? 0 : ngpus))) {
            return t;
        }
    }
    return -1;
}
