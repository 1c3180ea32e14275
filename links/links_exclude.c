/* The exclude list of `scaleprobe links`: PREFIX.txt, one host a line (what `sbatch
 * --exclude` and `scontrol` take), and PREFIX.json with the reason and the evidence of each
 * node, the slow links (not drained: a cable or a switch port is not a node), and the Slurm
 * commands, which are printed and written, never run. */
#include "links_report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "links_verdict.h"
#include "log.h"

static const char *const side_names[] = {"both", "send", "recv"};

static void json_outlier(FILE *f, const sp_links_outlier_row_t *o)
{
    fprintf(f, "{\"metric\": ");
    sp_json_str(f, sp_links_metric_names[o->metric]);
    fprintf(f, ", \"side\": ");
    sp_json_str(f, side_names[o->side]);
    sp_json_num(f, "ratio_to_cohort", o->ratio);
    sp_json_num(f, "ci_lo", o->ratio_lo);
    sp_json_num(f, "ci_hi", o->ratio_hi);
    sp_json_num(f, "cohort", o->cohort);
    fprintf(f, ", \"cohort_units\": ");
    sp_json_str(f, sp_links_metric_units((sp_links_metric_t)o->metric));
    fprintf(f, ", \"slow_links\": %d, \"links\": %d", o->nslow, o->nlinks);
    if (o->rail >= 0) {
        fprintf(f, ", \"rail\": %d", (int)o->rail);
    }
    fprintf(f, "}");
}

/* One entry of "nodes": the host, a one-line reason and every finding that names it. */
static void json_node(FILE *f, const sp_links_result_data_t *d, const char *host, int first)
{
    int k = 0;

    fprintf(f, "%s\n    {\"host\": ", first ? "" : ",");
    sp_json_str(f, host);
    fprintf(f, ", \"reason\": ");
    {
        char reason[256] = "scaleprobe links: slow screen group";
        for (size_t i = 0; i < d->noutliers; i++) {
            const sp_links_outlier_row_t *o = &d->outliers[i];
            if (o->kind == SP_LINKS_FIND_NODE && strcmp(o->host_a, host) == 0) {
                snprintf(reason, sizeof(reason), "scaleprobe links: %s %.2fx cohort (95%% CI "
                         "%.2f-%.2f), %d of %d links slow",
                         sp_links_metric_names[o->metric], o->ratio, o->ratio_lo, o->ratio_hi,
                         o->nslow, o->nlinks);
                break;
            }
        }
        sp_json_str(f, reason);
    }
    fprintf(f, ", \"evidence\": [");
    for (size_t i = 0; i < d->noutliers; i++) {
        const sp_links_outlier_row_t *o = &d->outliers[i];
        if (o->kind == SP_LINKS_FIND_NODE && strcmp(o->host_a, host) == 0) {
            fprintf(f, "%s", k++ > 0 ? ", " : "");
            json_outlier(f, o);
        }
    }
    char screened[SP_HOST_LEN];
    if (sp_links_screen_host(d, screened, sizeof(screened)) && strcmp(screened, host) == 0) {
        fprintf(f, "%s{\"screen\": ", k++ > 0 ? ", " : "");
        sp_json_str(f, d->screen_verdict);
        fprintf(f, "}");
    }
    fprintf(f, "],\n     \"scontrol\": ");
    {
        char cmd[512];
        snprintf(cmd, sizeof(cmd), "scontrol update nodename=%s state=drain reason=\"scaleprobe "
                 "links: slow node\"", host);
        sp_json_str(f, cmd);
    }
    fprintf(f, "}");
}

static sp_status_t write_json(const sp_links_result_data_t *d, const char *path,
                              const char *source, char *hosts)
{
    FILE *f = fopen(path, "w");
    int first = 1;
    int nlinks = 0;

    if (f == NULL) {
        sp_error("links: cannot write %s: %s", path, strerror(errno));
        return SP_ERR_IO;
    }
    fprintf(f, "{\"tool\": \"scaleprobe links\", \"result\": ");
    sp_json_str(f, source);
    fprintf(f, ", \"threshold\": ");
    sp_json_str(f, d->threshold);
    fprintf(f, ",\n  \"slurm_exclude\": ");
    sp_json_str(f, hosts);
    fprintf(f, ",\n  \"nodes\": [");
    for (char *h = strtok(hosts, ","); h != NULL; h = strtok(NULL, ",")) {
        json_node(f, d, h, first);
        first = 0;
    }
    fprintf(f, "],\n  \"links\": [");
    for (size_t i = 0; i < d->noutliers; i++) {
        const sp_links_outlier_row_t *o = &d->outliers[i];
        if (o->kind != SP_LINKS_FIND_LINK) {
            continue;
        }
        fprintf(f, "%s\n    {\"a\": ", nlinks++ > 0 ? "," : "");
        sp_json_str(f, o->host_a);
        fprintf(f, ", \"b\": ");
        sp_json_str(f, o->host_b);
        fprintf(f, ", \"finding\": ");
        json_outlier(f, o);
        fprintf(f, ", \"action\": \"check the cable, switch ports and path between a and b\"}");
    }
    fprintf(f, "]}\n");
    if (fclose(f) != 0) {
        sp_error("links: cannot write %s: %s", path, strerror(errno));
        return SP_ERR_IO;
    }
    return SP_OK;
}

sp_status_t sp_links_exclude_write(const sp_links_result_data_t *d, const char *prefix,
                                   const char *source)
{
    char hosts[4096];
    char path[4200];
    FILE *f;
    int n = sp_links_exclude_hosts(d, hosts, sizeof(hosts));

    snprintf(path, sizeof(path), "%s.txt", prefix);
    f = fopen(path, "w");
    if (f == NULL) {
        sp_error("links: cannot write %s: %s", path, strerror(errno));
        return SP_ERR_IO;
    }
    for (int i = 0, at = 0; i < n; i++) {
        int len = (int)strcspn(hosts + at, ",");
        fprintf(f, "%.*s\n", len, hosts + at);
        at += len + 1;
    }
    if (fclose(f) != 0) {
        sp_error("links: cannot write %s: %s", path, strerror(errno));
        return SP_ERR_IO;
    }
    snprintf(path, sizeof(path), "%s.json", prefix);
    return write_json(d, path, source, hosts);
}
