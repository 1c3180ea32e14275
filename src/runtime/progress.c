/* The progress line (progress.h): one formatter, pure and unit tested, and a thin drawer. */
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "timeutil.h"

int sp_progress_wanted(int rank, int quiet, int is_tty)
{
    return rank == 0 && !quiet && is_tty;
}

/* Open MPI's mpirun hands a rank's stderr over a pipe (its stdout over a pty, whatever mpirun's
 * own stdout is), so isatty(2) is false under mpirun even on a terminal: when the parent
 * process is the launcher, its stderr decides. */
static int launcher_stderr_is_tty(void)
{
    static const char *const launchers[] = {"mpirun", "mpiexec", "orterun", "prterun"};
    char path[64];
    char comm[64] = "";
    char target[256];
    ssize_t n;
    int is_launcher = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%ld/comm", (long)getppid());
    f = fopen(path, "r");
    if (f == NULL) {
        return 0;
    }
    if (fgets(comm, sizeof(comm), f) == NULL) {
        comm[0] = '\0';
    }
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
        is_launcher |= strcmp(comm, launchers[i]) == 0;
    }
    snprintf(path, sizeof(path), "/proc/%ld/fd/2", (long)getppid());
    n = is_launcher ? readlink(path, target, sizeof(target) - 1) : -1;
    if (n <= 0) {
        return 0;
    }
    target[n] = '\0';
    return strncmp(target, "/dev/pts/", 9) == 0 || strncmp(target, "/dev/tty", 8) == 0;
}

void sp_progress_init(sp_progress_t *p, int rank, int quiet, size_t total, const char *unit)
{
    memset(p, 0, sizeof(*p));
    p->on = sp_progress_wanted(rank, quiet,
                               rank == 0 && (isatty(STDERR_FILENO) || launcher_stderr_is_tty()));
    p->unit = unit;
    p->total = total;
    p->t0_ns = sp_time_ns();
    p->last_ns = p->t0_ns;
}

void sp_progress_duration(double s, char *out, size_t outlen)
{
    if (!(s >= 0.0) || isinf(s)) {
        snprintf(out, outlen, "?");
    } else if (s < 10.0) {
        snprintf(out, outlen, "%.2f s", s);
    } else if (s < 60.0) {
        snprintf(out, outlen, "%.1f s", s);
    } else if (s < 3600.0) {
        long m = (long)(s / 60.0);
        snprintf(out, outlen, "%ldm%02lds", m, (long)(s - 60.0 * (double)m));
    } else {
        long h = (long)(s / 3600.0);
        snprintf(out, outlen, "%ldh%02ldm", h, (long)((s - 3600.0 * (double)h) / 60.0));
    }
}

void sp_progress_format(size_t done, size_t total, const char *unit, double elapsed_s,
                        const char *what, double last_s, char *out, size_t outlen)
{
    char el[32], eta[32], last[48];
    size_t used;

    sp_progress_duration(elapsed_s, el, sizeof(el));
    if (total > 0 && done > 0 && done <= total) {
        sp_progress_duration(elapsed_s / (double)done * (double)(total - done), eta, sizeof(eta));
    } else {
        snprintf(eta, sizeof(eta), "?");
    }
    last[0] = '\0';
    if (last_s > 0.0) {
        char d[32];
        sp_progress_duration(last_s, d, sizeof(d));
        snprintf(last, sizeof(last), "  last %s", d);
    }
    if (total > 0) {
        used = (size_t)snprintf(out, outlen, "[%zu/%zu %ss]", done, total, unit);
    } else {
        used = (size_t)snprintf(out, outlen, "[%zu %ss]", done, unit);
    }
    if (used < outlen) {
        snprintf(out + used, outlen - used, " %s  elapsed %s  ETA %s%s", what, el, eta, last);
    }
}

static void draw(sp_progress_t *p, const char *what, double last_s)
{
    char line[256];
    size_t len;

    sp_progress_format(p->done, p->total, p->unit, (double)(sp_time_ns() - p->t0_ns) * 1e-9, what,
                       last_s, line, sizeof(line));
    len = strlen(line);
    /* pad over a longer previous line instead of relying on terminal escapes; the closing
     * '\r' lets the next output line overwrite this one */
    fprintf(stderr, "\r%s%*s\r", line, p->drawn > len ? (int)(p->drawn - len) : 0, "");
    fflush(stderr);
    p->drawn = len;
}

void sp_progress_heartbeat(sp_progress_t *p, int rank, int quiet, double every_s)
{
    p->beat_ns = 0;
    if (rank == 0 && !quiet && !p->on && every_s > 0.0) {
        p->beat_ns = (uint64_t)(every_s * 1e9);
        p->next_beat_ns = p->t0_ns + p->beat_ns;
    }
}

void sp_progress_tick(sp_progress_t *p)
{
    char line[256];
    uint64_t now;

    if (p == NULL || p->beat_ns == 0) {
        return;
    }
    now = sp_time_ns();
    if (now < p->next_beat_ns) {
        return;
    }
    sp_progress_format(p->done, p->total, p->unit, (double)(now - p->t0_ns) * 1e-9,
                       p->what[0] != '\0' ? p->what : "starting", 0.0, line, sizeof(line));
    /* a whole line, flushed: a log or a pipe (srun without --pty) shows it at once */
    fprintf(stderr, "progress: %s\n", line);
    fflush(stderr);
    p->next_beat_ns = now + p->beat_ns;
}

void sp_progress_start_item(sp_progress_t *p, const char *what)
{
    snprintf(p->what, sizeof(p->what), "%s", what);
    if (p->on) {
        draw(p, what, 0.0);
    }
    sp_progress_tick(p);
}

void sp_progress_item_done(sp_progress_t *p)
{
    uint64_t now = sp_time_ns();
    double last_s = (double)(now - p->last_ns) * 1e-9;

    p->done++;
    p->last_ns = now;
    /* as on the terminal: the finished item is counted, none is in progress */
    snprintf(p->what, sizeof(p->what), "done");
    if (p->on) {
        draw(p, "done", last_s > 0.0 ? last_s : 1e-9);
    }
    sp_progress_tick(p);
}

void sp_progress_clear(sp_progress_t *p)
{
    if (p->on && p->drawn > 0) {
        fprintf(stderr, "\r%*s\r", (int)p->drawn, "");
        fflush(stderr);
        p->drawn = 0;
    }
}
