/* regress: what changed at a change point (see regress_changes.h). */
#include "regress_changes.h"

#include <stdlib.h>
#include <string.h>

#include "fpdiff.h"
#include "json.h"
#include "kv.h"
#include "reader_probe.h"

#define MAX_OPTS 256

/* Options that name the run's own output differ between any two runs and explain nothing. */
static int names_output(const char *key)
{
    return strcmp(key, "output") == 0 || strcmp(key, "force") == 0;
}

/* /config of path without the output-naming options, into kv (MAX_OPTS); how many. */
static int read_options(const char *path, sp_kv_t *kv)
{
    /* in a child process: a damaged attribute table cannot crash regress (none shown then) */
    int n = sp_reader_attrs(path, "/config", kv, MAX_OPTS), k = 0;

    for (int i = 0; i < n; i++) {
        if (!names_output(kv[i].key)) {
            kv[k++] = kv[i];
        }
    }
    return k;
}

/* The fingerprint differences as text lines, each prefixed with "#   fingerprint". */
static int print_fingerprint_text(const char *before, const char *after, FILE *out)
{
    char *buf = NULL, *line, *save = NULL;
    size_t len = 0;
    int n;
    FILE *mem = open_memstream(&buf, &len);

    if (mem == NULL) {
        return 0;
    }
    n = sp_fpdiff_files(before, after, mem, NULL);
    fclose(mem);
    for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        fprintf(out, "#   fingerprint%s\n", line + (line[0] == ' ' ? 1 : 0));
    }
    free(buf);
    return n > 0 ? n : 0;
}

int sp__regress_what_changed(size_t run, const char *before, const char *after, int json, FILE *out)
{
    sp_kv_t *kv = calloc(2 * MAX_OPTS, sizeof(*kv));
    sp_fpdiff_t *d = calloc(2 * MAX_OPTS, sizeof(*d));
    int na, nb, nd = 0, nf, total;

    if (kv != NULL && d != NULL) {
        na = read_options(before, kv);
        nb = read_options(after, kv + MAX_OPTS);
        nd = sp_fpdiff_kv(kv, na, kv + MAX_OPTS, nb, d, 2 * MAX_OPTS);
        nd = nd < 2 * MAX_OPTS ? nd : 2 * MAX_OPTS;
    }
    total = nd;
    if (json) {
        fprintf(out, "{\"run\": %zu, \"before\": ", run);
        sp_json_str(out, before);
        fprintf(out, ", \"after\": ");
        sp_json_str(out, after);
        fprintf(out, ", \"options\": [");
        for (int i = 0; i < nd; i++) {
            fprintf(out, "%s{\"key\": ", i ? ", " : "");
            sp_json_str(out, d[i].field);
            fprintf(out, ", \"a\": ");
            sp_json_str(out, d[i].a);
            fprintf(out, ", \"b\": ");
            sp_json_str(out, d[i].b);
            fputc('}', out);
        }
        fprintf(out, "], \"fingerprint\": ");
        nf = sp_fpdiff_files(before, after, NULL, out);
        total += nf > 0 ? nf : 0;
        fputc('}', out);
    } else {
        fprintf(out, "# What changed at run %zu (%s -> %s):\n", run, before, after);
        for (int i = 0; i < nd; i++) {
            fprintf(out, "#   option %s: %s -> %s\n", d[i].field, d[i].a, d[i].b);
        }
        total += print_fingerprint_text(before, after, out);
        if (total == 0) {
            fprintf(out, "#   (nothing recorded differs)\n");
        }
    }
    free(d);
    free(kv);
    return total;
}
