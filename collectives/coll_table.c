/* nccl-tests' table layout: size count type redop root, then time algbw busbw #wrong for
 * out-of-place and for in-place; scaleprobe adds the CI half-width and the late rank (by arrival)
 * of each at the end of the line, so scripts that read nccl-tests' columns by position still work. */
#include "coll_table.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "coll.h"
#include "dtype.h"

void sp_format_number(double v, int width, char *out, size_t outlen)
{
    if (isnan(v)) {
        snprintf(out, outlen, "%s", "n/a");
        return;
    }
    if (isinf(v)) {
        snprintf(out, outlen, "%s", "inf");
        return;
    }
    /* the first of %.2f, %.1f, %.0f that fits the column, else an exponent */
    for (int prec = 2; prec >= 0; prec--) {
        if (snprintf(out, outlen, "%.*f", prec, v) <= width) {
            return;
        }
    }
    snprintf(out, outlen, "%.*e", width >= 7 ? 1 : 0, v);
}

void sp_format_time_us(double us, int width, char *out, size_t outlen)
{
    char num[32];

    /* microseconds print bare, as nccl-tests prints them; from 1 ms on the unit is printed, so
     * a long point stays readable and inside its column */
    if (!(us >= 1e3) || isinf(us)) {
        sp_format_number(us, width, out, outlen);
    } else if (us < 1e6) {
        sp_format_number(us / 1e3, width - 2, num, sizeof(num));
        snprintf(out, outlen, "%sms", num);
    } else {
        sp_format_number(us / 1e6, width - 1, num, sizeof(num));
        snprintf(out, outlen, "%ss", num);
    }
}

void sp_coll_table_header(FILE *out, const char *coll_name)
{
    fprintf(out, "#\n# %s\n", coll_name);
    fprintf(out, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       "
                 "in-place          \n",
            "", "", "", "", "");
    fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s  %6s  %5s  "
                 "%6s  %5s\n",
            "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
            "algbw", "busbw", "#wrong", "ci+-%", "slow", "ci+-%", "slow");
    fprintf(out, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s  %6s  %5s  "
                 "%6s  %5s\n",
            "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
            "(GB/s)", "", "(out)", "(out)", "(in)", "(in)");
}

static void format_half(const sp_coll_row_t *r, char *buf, size_t len, char *extra,
                        size_t extralen)
{
    char t[16], a[16], b[16], w[24], ci[16], late[16];

    if (r == NULL) {
        snprintf(buf, len, "  %7s  %6s  %6s  %6s", "-", "-", "-", "-");
        snprintf(extra, extralen, "  %6s  %5s", "-", "-");
        return;
    }
    sp_format_time_us(r->time_us, 7, t, sizeof(t));
    sp_format_number(r->algbw_gbps, 6, a, sizeof(a));
    sp_format_number(r->busbw_gbps, 6, b, sizeof(b));
    if (r->wrong < 0) {
        snprintf(w, sizeof(w), "%s", "N/A");
    } else {
        snprintf(w, sizeof(w), "%lld", (long long)r->wrong);
    }
    snprintf(buf, len, "  %7s  %6s  %6s  %6s", t, a, b, w);
    /* '~' marks a point whose samples drift (never converged: its median depends on when it
     * was measured); '!' one that stopped on --max-time or --max-samples before the CI target */
    sp_format_number(r->ci_rel * 100.0, 5, ci, sizeof(ci));
    if (r->drift) {
        strncat(ci, "~", sizeof(ci) - strlen(ci) - 1);
    } else if (!r->converged) {
        strncat(ci, "!", sizeof(ci) - strlen(ci) - 1);
    }
    /* slow: the late rank by arrival (docs/METHODOLOGY.md), '-' when no rank is late beyond the
     * clock bound; never the rank with the longest own time, which is one of its victims */
    if (r->late_rank >= 0) {
        snprintf(late, sizeof(late), "%d", (int)r->late_rank);
    } else {
        snprintf(late, sizeof(late), "%s", "-");
    }
    snprintf(extra, extralen, "  %6s  %5s", ci, late);
}

void sp_coll_table_line(FILE *out, const sp_coll_row_t *out_row, const sp_coll_row_t *in_row)
{
    const sp_coll_row_t *r = out_row != NULL ? out_row : in_row;
    char half_out[160], half_in[160], extra_out[64], extra_in[64];

    if (r == NULL) {
        return;
    }
    format_half(out_row, half_out, sizeof(half_out), extra_out, sizeof(extra_out));
    format_half(in_row, half_in, sizeof(half_in), extra_in, sizeof(extra_in));
    fprintf(out, "%12llu  %12llu  %8s  %6s  %6d%s%s%s%s\n", (unsigned long long)r->bytes,
            (unsigned long long)r->count, sp_dtype_name((sp_dtype_t)r->dtype),
            r->redop < 0 ? "none" : sp_redop_name((sp_redop_t)r->redop), (int)r->root, half_out,
            half_in, extra_out, extra_in);
}

void sp_coll_totals_add(sp_coll_totals_t *t, const sp_coll_row_t *row)
{
    t->rows++;
    if (!isnan(row->busbw_gbps)) {
        t->busbw_sum += row->busbw_gbps;
        t->busbw_n++;
    }
    if (!row->converged) {
        t->not_converged++;
    }
    if (row->drift) {
        t->drifting++;
    }
    if (row->wrong >= 0) {
        t->checked = 1;
        /* saturates: the counts come from a file too (report), where damage could overflow */
        t->wrong = row->wrong > INT64_MAX - t->wrong ? INT64_MAX : t->wrong + row->wrong;
    }
}

void sp_coll_table_footer(FILE *out, const sp_coll_totals_t *t)
{
    if (t->checked) {
        fprintf(out, "# %-20s : %lld %s\n", "Out of bounds values", t->wrong,
                t->wrong == 0 ? "OK" : "FAILED");
    } else {
        fprintf(out, "# %-20s : %s\n", "Out of bounds values", "N/A (--no-check)");
    }
    if (t->busbw_n > 0) {
        fprintf(out, "# %-20s : %g\n", "Avg bus bandwidth", t->busbw_sum / (double)t->busbw_n);
    } else {
        fprintf(out, "# %-20s : n/a (not meaningful with %d rank: no data crosses a link)\n",
                "Avg bus bandwidth", t->nranks);
    }
    fprintf(out, "# %-20s : %ld of %ld points met the CI target ('!' marks the others)\n",
            "Converged", t->rows - t->not_converged, t->rows);
    if (t->drifting > 0) {
        fprintf(out, "# %-20s : %ld point(s) drifted while measured ('~'; not converged, the "
                     "median depends on when it was taken)\n",
                "Drift", t->drifting);
    }
    fprintf(out, "#\n");
}
