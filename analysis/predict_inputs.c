/* The measured inputs of `scaleprobe predict` (predict_inputs.h): coll sweep files for the
 * communication and a node file for the compute rate. */
#include "predict_inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "launcher.h"
#include "node_result.h"
#include "reader.h"
#include "stats.h"

static int bad(const char *msg)
{
    sp_launcher_error("predict", msg);
    return 2;
}

/* One sweep file into the set of its communicator size: of each collective, the rows that are
 * out-of-place, verified, summing or no reduction; of the model's type when the file has it,
 * else of every type (a size's times averaged). Only a file of the pass's issue mode (stream
 * files first); a blocking sweep of a size that a stream-issued one covers is named and left
 * out, since the proxy issues its collectives as the stream mode times them. 0 to go on, else
 * the exit code. */
static int load_sweep_file(sp_predict_comm_t *c, sp_dtype_t dtype, const char *path,
                           int stream_pass)
{
    sp_reader_t rd;
    char msg[SP_OPT_STRLEN + 256];
    sp_predict_sweep_t *sw;
    sp_status_t st = sp_reader_open(path, &rd);

    if (st != SP_OK) {
        snprintf(msg, sizeof(msg), "--sweep %.1000s: %.240s", path, rd.why);
        return bad(msg);
    }
    if (strcmp(rd.subcommand, "coll") != 0) {
        snprintf(msg, sizeof(msg), "--sweep %s: is a `%.32s` result file, not a `coll` sweep",
                 path, rd.subcommand);
        sp_reader_close(&rd);
        return bad(msg);
    }
    if (rd.nrows == 0 || rd.world_size < 2) {
        snprintf(msg, sizeof(msg), "--sweep %s: %s", path,
                 rd.nrows == 0 ? "has no collective sweep points (/coll/results is empty)"
                               : "was measured on one rank: no communicator to scale from");
        sp_reader_close(&rd);
        return bad(msg);
    }
    if ((strcmp(rd.issue, "stream") == 0) != stream_pass) {
        sp_reader_close(&rd);
        return 0;
    }
    if ((sw = sp_predict_sweeps_at(&c->sweeps, rd.world_size)) == NULL) {
        snprintf(msg, sizeof(msg), "--sweep: more than %d communicator sizes",
                 SP_PREDICT_MAX_SWEEPS);
        sp_reader_close(&rd);
        return bad(msg);
    }
    if (!stream_pass && c->stream_sweep[sw - c->sweeps.set]) {
        size_t len = strlen(c->source);
        snprintf(c->source + len, sizeof(c->source) - len,
                 ", not %s (%d ranks, blocking issue: a stream-issued sweep covers that size)",
                 path, rd.world_size);
        sp_reader_close(&rd);
        return 0;
    }
    c->stream_sweep[sw - c->sweeps.set] = stream_pass;
    for (int op = 0; op < SP_COLL_COUNT && st == SP_OK; op++) {
        int typed = 0;
        for (size_t i = 0; i < rd.nrows; i++) {
            typed |= rd.rows[i].op == op && rd.rows[i].dtype == (int)dtype;
        }
        for (size_t i = 0; i < rd.nrows && st == SP_OK; i++) {
            const sp_coll_row_t *r = &rd.rows[i];
            double us, busbw;
            if (r->op != op || r->in_place || r->wrong > 0 || r->bytes == 0 ||
                !(r->redop == SP_REDOP_NONE || r->redop == SP_REDOP_SUM) ||
                (typed && r->dtype != (int)dtype) || !(r->time_us > 0.0) ||
                sp_reader_point_cycle(&rd, i) > 0) {
                continue; /* a -N sweep's later cycles: pooled with the first */
            }
            st = sp_reader_point_value(&rd, i, &us, &busbw);
            if (st == SP_OK && us > 0.0) {
                st = sp_predict_sweep_add(sw, op, r->bytes, us);
            }
        }
    }
    if (stream_pass && rd.stream_wait_ns > c->wait_ns) {
        c->wait_ns = rd.stream_wait_ns;
    }
    {
        size_t len = strlen(c->source);
        snprintf(c->source + len, sizeof(c->source) - len, "%s%s (%d ranks%s%s)",
                 len ? ", " : "sweep ", path, rd.world_size,
                 stream_pass ? ", issued on a stream as the proxy issues its collectives" : "",
                 stream_pass && rd.stream_wait_ns <= 0 ? "; cross-lane wait not measured" : "");
    }
    sp_reader_close(&rd);
    if (st != SP_OK) {
        snprintf(msg, sizeof(msg), "reading the sweep %s: %s", path, sp_status_str(st));
        sp_launcher_error("predict", msg);
        return 1;
    }
    return 0;
}

int sp_predict_load_sweeps(const char *files, sp_dtype_t dtype, sp_predict_comm_t *c)
{
    char list[SP_OPT_STRLEN], *save = NULL;
    int rc = 0;

    for (int pass = 1; pass >= 0 && rc == 0; pass--) {
        snprintf(list, sizeof(list), "%s", files);
        for (char *f = strtok_r(list, ",", &save); f != NULL && rc == 0;
             f = strtok_r(NULL, ",", &save)) {
            rc = load_sweep_file(c, dtype, f, pass);
        }
    }
    if (rc == 0 && c->sweeps.n == 0) {
        rc = bad("--sweep: no file named");
    }
    if (rc == 0 && c->wait_ns > 0) {
        size_t len = strlen(c->source);
        snprintf(c->source + len, sizeof(c->source) - len,
                 "; cross-lane wait %.3f ms (measured by the sweep) added to every dependency "
                 "on another lane", (double)c->wait_ns / 1e6);
    }
    for (int i = 0; i < c->sweeps.n; i++) {
        sp_predict_sweep_finish(&c->sweeps.set[i]);
    }
    return rc;
}

int sp_predict_load_node_rate(const char *path, sp_dtype_t dtype, double *tflops_p, char *source,
                              size_t len)
{
    sp_node_kind_t kind = dtype == SP_DTYPE_DOUBLE  ? SP_NODE_GEMM_F64
                          : dtype == SP_DTYPE_HALF  ? SP_NODE_GEMM_F16
                          : dtype == SP_DTYPE_BFLOAT16 ? SP_NODE_GEMM_BF16
                                                               : SP_NODE_GEMM_F32;
    char msg[SP_OPT_STRLEN + 256];
    double *rates;
    size_t n = 0;
    int other_type = 0;
    sp_reader_t rd;

    if (sp_reader_open(path, &rd) != SP_OK) {
        snprintf(msg, sizeof(msg), "--node %.1000s: %.240s", path, rd.why);
        return bad(msg);
    }
    if (strcmp(rd.subcommand, "node") != 0) {
        snprintf(msg, sizeof(msg), "--node %s: is a `%.32s` result file, not a `node` file", path,
                 rd.subcommand);
        sp_reader_close(&rd);
        return bad(msg);
    }
    rates = calloc(rd.nnode_rows + 1, sizeof(*rates));
    for (size_t i = 0; rates != NULL && i < rd.nnode_rows; i++) {
        if (rd.node_rows[i].kind == (int8_t)kind && rd.node_rows[i].median > 0.0) {
            rates[n++] = rd.node_rows[i].median;
            /* on the host, half and bfloat16 GEMMs run in float (docs/METHODOLOGY.md) */
            other_type |= rd.node_rows[i].dtype != (int8_t)dtype;
        }
    }
    if (rates == NULL || n == 0) {
        snprintf(msg, sizeof(msg), "--node %s: %s", path,
                 rates == NULL ? "out of memory"
                               : "has no GEMM rate of the proxy's type (run `scaleprobe node -d` "
                                 "with it)");
        free(rates);
        sp_reader_close(&rd);
        return bad(msg);
    }
    *tflops_p = sp_stats_median(rates, n, rates) * 1e-3;
    snprintf(source, len,
             "; compute %.6g TFLOP/s: median %s over %zu ranks of %.900s%s", *tflops_p,
             sp_node_kind_names[kind], n, path,
             other_type ? " (computed in another type: a host BLAS has no 16-bit GEMM)" : "");
    if (other_type) {
        fprintf(stderr, "scaleprobe predict: warning: %s in %s was computed in another type "
                        "than the model's; its rate is used as is\n",
                sp_node_kind_names[kind], path);
    }
    free(rates);
    sp_reader_close(&rd);
    return 0;
}

int sp_predict_check_covers(const sp_predict_sweeps_t *sweeps, const char *files,
                            const sp_program_t *progs, int p)
{
    for (int s = 0; s < p; s++) {
        const sp_program_t *g = &progs[s];
        for (size_t i = 0; i < g->n; i++) {
            int op = g->tasks[i].kind == SP_TASK_COLL   ? g->tasks[i].coll
                     : g->tasks[i].kind == SP_TASK_SEND ? SP_PREDICT_OP_P2P
                                                        : -2;
            if (op != -2 && sp_predict_sweeps_pick(sweeps, op, 2) == NULL) {
                char msg[SP_OPT_STRLEN + 256];
                snprintf(msg, sizeof(msg),
                         "--sweep %s has no out-of-place %s points, which this layout needs "
                         "(sweep with --collectives all_reduce,all_gather,reduce_scatter,sendrecv)",
                         files,
                         sp_coll_names[op == SP_PREDICT_OP_P2P ? SP_COLL_SENDRECV : op]);
                return bad(msg);
            }
        }
    }
    return 0;
}
