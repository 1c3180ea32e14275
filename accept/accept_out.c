/* The outputs of `scaleprobe accept`: table, JSON, JUnit XML, exclude list. */
#include "accept_out.h"

#include <math.h>
#include <string.h>

#include "json.h"

void sp_accept_print(FILE *out, const sp_spec_t *spec, const sp_accept_eval_t *ev)
{
    int nfailed = 0;

    fprintf(out, "# scaleprobe accept: spec %s, %d node(s), repeats %d\n", spec->path, ev->nnodes,
            spec->repeats);
    fprintf(out, "# %4s  %-16s %-10s %-26s %-7s %-18s %-16s %s\n", "node", "host", "type", "check",
            "verdict", "value", "threshold", "evidence");
    for (int i = 0; i < ev->nrows; i++) {
        const sp_accept_row_t *r = &ev->rows[i];
        fprintf(out, "  %4d  %-16.16s %-10.10s %-26s %-7s %-18.18s %-16.16s %.100s%s\n", r->node,
                r->host, r->type, sp_accept_row_check(r), sp_verdict_names[r->res.verdict],
                r->res.value_text, r->res.threshold, r->res.evidence,
                strlen(r->res.evidence) > 100 ? "..." : "");
    }
    for (int n = 0; n < ev->nnodes; n++) {
        int c[4] = {0, 0, 0, 0};
        const char *host = "?";
        for (int i = 0; i < ev->nrows; i++) {
            if (ev->rows[i].node == n) {
                c[ev->rows[i].res.verdict]++;
                host = ev->rows[i].host;
            }
        }
        nfailed += ev->node_verdict[n] == SP_VERDICT_FAIL;
        fprintf(out, "# node %d %s: %s (%d fail, %d warn, %d pass, %d n/a)\n", n, host,
                sp_verdict_names[ev->node_verdict[n]], c[SP_VERDICT_FAIL], c[SP_VERDICT_WARN],
                c[SP_VERDICT_PASS], c[SP_VERDICT_NA]);
    }
    fprintf(out, "# job: %s (%d of %d node(s) failed)\n", sp_verdict_names[ev->job], nfailed,
            ev->nnodes);
}

static void json_row(FILE *out, const sp_accept_row_t *r)
{
    fprintf(out, "{\"check\": ");
    sp_json_str(out, sp_accept_row_check(r));
    fprintf(out, ", \"verdict\": ");
    sp_json_str(out, sp_verdict_names[r->res.verdict]);
    sp_json_num(out, "value", r->res.value);
    fprintf(out, ", \"value_text\": ");
    sp_json_str(out, r->res.value_text);
    fprintf(out, ", \"threshold\": ");
    sp_json_str(out, r->res.threshold);
    fprintf(out, ", \"evidence\": ");
    sp_json_str(out, r->res.evidence);
    fprintf(out, ", \"spec_line\": %d}", r->line);
}

void sp_accept_write_json(FILE *out, const sp_spec_t *spec, const sp_accept_eval_t *ev)
{
    fprintf(out, "{\"spec\": ");
    sp_json_str(out, spec->path);
    fprintf(out, ", \"verdict\": ");
    sp_json_str(out, sp_verdict_names[ev->job]);
    fprintf(out, ", \"nodes\": [");
    for (int n = 0; n < ev->nnodes; n++) {
        int first = 1;
        for (int i = 0; i < ev->nrows; i++) {
            const sp_accept_row_t *r = &ev->rows[i];
            if (r->node != n) {
                continue;
            }
            if (first) {
                fprintf(out, "%s\n  {\"node\": %d, \"host\": ", n > 0 ? "," : "", n);
                sp_json_str(out, r->host);
                fprintf(out, ", \"type\": ");
                sp_json_str(out, r->type);
                fprintf(out, ", \"verdict\": ");
                sp_json_str(out, sp_verdict_names[ev->node_verdict[n]]);
                fprintf(out, ", \"checks\": [");
            }
            fprintf(out, "%s\n    ", first ? "" : ",");
            json_row(out, r);
            first = 0;
        }
        if (!first) {
            fprintf(out, "]}");
        }
    }
    fprintf(out, "\n]}\n");
}

/* XML text: the five entities escaped; control characters XML 1.0 forbids, and bytes of
 * invalid UTF-8, become '?'. */
static void xml_str(FILE *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    while (*p != '\0') {
        int len = *p < 0x80         ? 1
                  : (*p >> 5) == 6  ? 2
                  : (*p >> 4) == 14 ? 3
                  : (*p >> 3) == 30 ? 4
                                    : 0;
        int ok = len > 0;
        for (int k = 1; ok && k < len; k++) {
            ok = (p[k] & 0xC0) == 0x80;
        }
        if (!ok) {
            fputc('?', out);
            p++;
            continue;
        }
        if (len > 1) {
            fwrite(p, 1, (size_t)len, out);
            p += len;
            continue;
        }
        switch (*p) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&apos;", out);
            break;
        default:
            fputc(*p < 0x20 && *p != '\t' && *p != '\n' ? '?' : *p, out);
            break;
        }
        p++;
    }
}

static void junit_case(FILE *out, const sp_accept_row_t *r)
{
    const char *check = sp_accept_row_check(r);

    fprintf(out, "    <testcase name=\"");
    xml_str(out, check);
    fprintf(out, "\" classname=\"scaleprobe.accept.");
    xml_str(out, r->host);
    fprintf(out, "\" time=\"0\">\n");
    if (r->res.verdict == SP_VERDICT_FAIL) {
        fprintf(out, "      <failure type=\"FAIL\" message=\"");
        xml_str(out, r->res.value_text);
        fprintf(out, " breaks ");
        xml_str(out, r->res.threshold);
        fprintf(out, "\">");
        xml_str(out, r->res.evidence);
        fprintf(out, "</failure>\n");
    } else if (r->res.verdict == SP_VERDICT_NA) {
        fprintf(out, "      <skipped message=\"not applicable: ");
        xml_str(out, r->res.evidence);
        fprintf(out, "\"/>\n");
    }
    fprintf(out, "      <system-out>");
    xml_str(out, sp_verdict_names[r->res.verdict]);
    fprintf(out, ": value ");
    xml_str(out, r->res.value_text);
    fprintf(out, ", threshold ");
    xml_str(out, r->res.threshold);
    fprintf(out, "; ");
    xml_str(out, r->res.evidence);
    fprintf(out, "</system-out>\n    </testcase>\n");
}

void sp_accept_write_junit(FILE *out, const sp_accept_eval_t *ev, const char *created)
{
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(out,
            "<testsuites name=\"scaleprobe accept\" tests=\"%d\" failures=\"%d\" errors=\"0\" "
            "skipped=\"%d\" time=\"0\">\n",
            ev->nrows, ev->counts[SP_VERDICT_FAIL], ev->counts[SP_VERDICT_NA]);
    for (int n = 0; n < ev->nnodes; n++) {
        int c[4] = {0, 0, 0, 0}, tests = 0;
        const sp_accept_row_t *first = NULL;
        for (int i = 0; i < ev->nrows; i++) {
            if (ev->rows[i].node == n) {
                c[ev->rows[i].res.verdict]++;
                tests++;
                first = first != NULL ? first : &ev->rows[i];
            }
        }
        if (first == NULL) {
            continue;
        }
        fprintf(out, "  <testsuite name=\"");
        xml_str(out, first->host);
        fprintf(out,
                "\" id=\"%d\" package=\"scaleprobe.accept\" tests=\"%d\" failures=\"%d\" "
                "errors=\"0\" skipped=\"%d\" time=\"0\" timestamp=\"%.19s\" hostname=\"",
                n, tests, c[SP_VERDICT_FAIL], c[SP_VERDICT_NA], created);
        xml_str(out, first->host);
        fprintf(out, "\">\n    <properties>\n      <property name=\"node_type\" value=\"");
        xml_str(out, first->type);
        fprintf(out, "\"/>\n      <property name=\"verdict\" value=\"%s\"/>\n    </properties>\n",
                sp_verdict_names[ev->node_verdict[n]]);
        for (int i = 0; i < ev->nrows; i++) {
            if (ev->rows[i].node == n) {
                junit_case(out, &ev->rows[i]);
            }
        }
        fprintf(out,
                "    <system-out>node verdict %s</system-out>\n    <system-err></system-err>\n"
                "  </testsuite>\n",
                sp_verdict_names[ev->node_verdict[n]]);
    }
    fprintf(out, "</testsuites>\n");
}

void sp_accept_write_exclude(FILE *out, const sp_accept_eval_t *ev)
{
    for (int n = 0; n < ev->nnodes; n++) {
        if (ev->node_verdict[n] != SP_VERDICT_FAIL) {
            continue;
        }
        /* a failed check of the node itself: a slower proxy step is the job's, no node's */
        for (int i = 0; i < ev->nrows; i++) {
            if (ev->rows[i].node == n && ev->rows[i].res.verdict == SP_VERDICT_FAIL &&
                strcmp(sp_accept_row_check(&ev->rows[i]), "proxy_step") != 0) {
                fprintf(out, "%s\n", ev->rows[i].host);
                break;
            }
        }
    }
}
