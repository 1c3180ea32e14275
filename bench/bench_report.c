/* `scaleprobe report` on a big timeline against the bare read of that timeline, in one job:
 * the bare read reads every row of /timeline/events once (sp_tlread_rank, rank by rank, 8192
 * rows a call) and does nothing with it; report is the real command. Each runs in a child
 * process, alternating, so its peak RSS (wait4's ru_maxrss) is its own. Prints every round,
 * the medians, report / bare read, and report's largest peak RSS against the 256 MiB target.
 * An optional reference binary (e.g. an older build) is run in the same rounds.
 *   bench_report SCALEPROBE FILE [rounds (3)] [REFERENCE_SCALEPROBE]
 *   bench_report --bare-read FILE (the bare read alone, e.g. under perf)
 * A big FILE: /usr/bin/python3 bench/timeline_synth.py BASE.h5 FILE NEVENTS (see there). */
#define _DEFAULT_SOURCE /* wait4 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "timeutil.h"
#include "tlread.h"

#define READ_ROWS 8192
#define MAX_ROUNDS 50
#define RSS_TARGET_MIB 256.0

typedef struct {
    double s;
    double rss_mib;
    int ok;
} run_t;

/* The bare read, in the child: returns the exit code. */
static int bare_read(const char *path)
{
    sp_tlread_t tl;
    sp_event_rec_t *buf = malloc(READ_ROWS * sizeof(*buf));
    uint64_t rows = 0, sum = 0;

    if (buf == NULL || sp_tlread_open(path, &tl) != SP_OK || !tl.present) {
        fprintf(stderr, "bench_report: %s: no readable timeline\n", path);
        return 2;
    }
    for (size_t i = 0; i < tl.nranks; i++) {
        for (uint64_t from = 0;; from += READ_ROWS) {
            size_t n = 0;
            if (sp_tlread_rank(&tl, tl.ranks[i].rank, buf, READ_ROWS, from, &n) != SP_OK) {
                fprintf(stderr, "bench_report: %s\n", tl.why);
                return 2;
            }
            for (size_t k = 0; k < n; k++) {
                sum += buf[k].seq; /* touch every row */
            }
            rows += n;
            if (n < READ_ROWS) {
                break;
            }
        }
    }
    sp_tlread_close(&tl);
    free(buf);
    /* the sum is printed so the reads cannot be optimized away */
    fprintf(stderr, "bare read: %llu rows (checksum %llu)\n", (unsigned long long)rows,
            (unsigned long long)(sum & 0xffff));
    return rows > 0 ? 0 : 2;
}

/* One child: the bare read (exe NULL) or `exe report path` with stdout to /dev/null. */
static run_t run_child(const char *exe, const char *path)
{
    run_t r = {0.0, 0.0, 0};
    struct rusage ru;
    int status = 0;
    uint64_t t0;
    pid_t pid;

    fflush(stdout); /* else the child's exit could print the parent's buffer again */
    t0 = sp_time_ns();
    pid = fork();

    if (pid == 0) {
        if (exe == NULL) {
            _exit(bare_read(path));
        }
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
        }
        execl(exe, exe, "report", path, (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) {
        return r;
    }
    r.s = (double)(sp_time_ns() - t0) / 1e9;
    r.rss_mib = (double)ru.ru_maxrss / 1024.0;
    r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return r;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), dbl_cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    const char *names[3] = {"bare read", "report", "reference report"};
    double t[3][MAX_ROUNDS], rss[3] = {0.0, 0.0, 0.0};
    int rounds = argc >= 4 ? atoi(argv[3]) : 3;
    int kinds = argc >= 5 ? 3 : 2;

    if (argc == 3 && strcmp(argv[1], "--bare-read") == 0) {
        return bare_read(argv[2]); /* the bare read alone, for a profiler */
    }
    if (argc < 3 || argc > 5 || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: bench_report SCALEPROBE FILE [rounds 1-%d] [REFERENCE]\n",
                MAX_ROUNDS);
        return 2;
    }
    for (int i = 0; i < rounds; i++) {
        for (int k = 0; k < kinds; k++) {
            const char *exe = k == 0 ? NULL : argv[k == 1 ? 1 : 4];
            run_t r = run_child(exe, argv[2]);
            if (!r.ok) {
                fprintf(stderr, "bench_report: %s failed\n", names[k]);
                return 1;
            }
            t[k][i] = r.s;
            rss[k] = r.rss_mib > rss[k] ? r.rss_mib : rss[k];
            printf("round %d: %-16s %8.3f s, peak RSS %8.1f MiB\n", i + 1, names[k], r.s,
                   r.rss_mib);
        }
    }
    double bare = median(t[0], rounds);
    double rep = median(t[1], rounds);
    printf("median over %d rounds: bare read %.3f s (%.1f MiB), report %.3f s (%.1f MiB)\n",
           rounds, bare, rss[0], rep, rss[1]);
    if (kinds == 3) {
        double ref = median(t[2], rounds);
        printf("reference report: %.3f s (%.1f MiB), %.2fx the bare read\n", ref, rss[2],
               ref / bare);
    }
    printf("report result: %.2fx the bare read (target <= 1.5), peak RSS %.1f MiB (target <= "
           "%.0f)\n",
           rep / bare, rss[1], RSS_TARGET_MIB);
    return 0;
}
