/* The host half of the health signals: InfiniBand/RoCE ports and their error counters from
 * sysfs, NVIDIA Xid events from the kernel log, the CPU frequency governor, the memory size. */
#define _DEFAULT_SOURCE /* scandir, alphasort */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health.h"

const char *const sp_health_ib_counter_names[SP_IB_NCOUNTERS] = {
#define SP_HEALTH_IB_NAME(name) #name,
    SP_HEALTH_IB_COUNTERS(SP_HEALTH_IB_NAME)
#undef SP_HEALTH_IB_NAME
};

/* Copy src into dst of len bytes, truncated (the callers' fields are fixed-size). */
static void copy_str(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);

    if (n >= len) {
        n = len - 1;
    }
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The first line of a small file without its newline; 0 when it cannot be read. */
static int read_line(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    int ok;

    if (f == NULL) {
        return 0;
    }
    ok = fgets(out, (int)len, f) != NULL;
    fclose(f);
    if (ok) {
        out[strcspn(out, "\n")] = '\0';
    }
    return ok;
}

/* "4: ACTIVE" -> "ACTIVE" (sysfs gives the number and the name). */
static void after_colon(const char *text, char *out, size_t len)
{
    const char *p = strchr(text, ':');

    p = p != NULL ? p + 1 : text;
    while (*p == ' ') {
        p++;
    }
    copy_str(out, len, p);
}

static int no_dots(const struct dirent *d)
{
    return d->d_name[0] != '.';
}

static void port_counters(const char *dir, long long *v)
{
    for (int c = 0; c < SP_IB_NCOUNTERS; c++) {
        char path[1200], text[64];
        v[c] = -1;
        snprintf(path, sizeof(path), "%s/counters/%s", dir, sp_health_ib_counter_names[c]);
        if (read_line(path, text, sizeof(text))) {
            v[c] = strtoll(text, NULL, 10);
        }
    }
}

static void read_port(const char *dir, const char *dev, int port, sp_health_port_t *p)
{
    char path[1200], text[128];

    memset(p, 0, sizeof(*p));
    copy_str(p->dev, sizeof(p->dev), dev);
    p->port = port;
    snprintf(path, sizeof(path), "%s/state", dir);
    after_colon(read_line(path, text, sizeof(text)) ? text : "?", p->state, sizeof(p->state));
    snprintf(path, sizeof(path), "%s/phys_state", dir);
    after_colon(read_line(path, text, sizeof(text)) ? text : "?", p->phys_state,
                sizeof(p->phys_state));
    snprintf(path, sizeof(path), "%s/link_layer", dir);
    if (!read_line(path, p->link_layer, sizeof(p->link_layer))) {
        snprintf(p->link_layer, sizeof(p->link_layer), "?");
    }
    /* "100 Gb/sec (4X EDR)" */
    snprintf(path, sizeof(path), "%s/rate", dir);
    p->rate_gbps = read_line(path, text, sizeof(text)) ? strtod(text, NULL) : -1.0;
    port_counters(dir, p->before);
    for (int c = 0; c < SP_IB_NCOUNTERS; c++) {
        p->after[c] = -1;
    }
}

static void read_ports(const sp_health_src_t *src, sp_health_node_t *h)
{
    char base[320];
    struct dirent **devs = NULL;
    int ndev;

    snprintf(base, sizeof(base), "%s/class/infiniband", src->sys_root);
    ndev = scandir(base, &devs, no_dots, alphasort);
    if (ndev < 0) {
        snprintf(h->ib_source, sizeof(h->ib_source), "no %.80s (%s)", base, strerror(errno));
        return;
    }
    copy_str(h->ib_source, sizeof(h->ib_source), base);
    for (int d = 0; d < ndev; d++) {
        char pdir[600];
        struct dirent **ports = NULL;
        int np;
        snprintf(pdir, sizeof(pdir), "%s/%s/ports", base, devs[d]->d_name);
        np = scandir(pdir, &ports, no_dots, alphasort);
        for (int i = 0; i < np; i++) {
            char dir[900];
            if (h->nports < SP_HEALTH_MAX_PORTS) {
                snprintf(dir, sizeof(dir), "%s/%s", pdir, ports[i]->d_name);
                read_port(dir, devs[d]->d_name, atoi(ports[i]->d_name), &h->port[h->nports++]);
            }
            free(ports[i]);
        }
        free(ports);
        free(devs[d]);
    }
    free(devs);
}

void sp_health_read_ports_after(const sp_health_src_t *src, sp_health_node_t *h)
{
    for (int i = 0; i < h->nports; i++) {
        char dir[600];
        snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%d", src->sys_root, h->port[i].dev,
                 h->port[i].port);
        port_counters(dir, h->port[i].after);
    }
}

int sp_health_parse_xid(const char *line)
{
    const char *p = strstr(line, "NVRM: Xid");
    char *end = NULL;
    long code;

    if (p == NULL || (p = strchr(p, ')')) == NULL) {
        return -1;
    }
    p++;
    while (*p == ':' || *p == ' ') {
        p++;
    }
    code = strtol(p, &end, 10);
    return end == p || code < 0 || code > 100000 ? -1 : (int)code;
}

static void add_xid(sp_health_node_t *h, const char *line)
{
    int code = sp_health_parse_xid(line);

    if (code < 0) {
        return;
    }
    if (h->nxids < SP_HEALTH_MAX_XIDS) {
        h->xid[h->nxids].code = code;
        copy_str(h->xid[h->nxids].line, sizeof(h->xid[h->nxids].line), line);
    }
    h->nxids++;
}

/* /dev/kmsg: one record per read ("pri,seq,time,flags;message"), EAGAIN at the end, EPIPE when
 * the ring overwrote the record being read (then reading goes on). */
static void read_kmsg(int fd, sp_health_node_t *h)
{
    char rec[8192]; /* a record is at most 8 KiB (a smaller read fails) */

    for (;;) {
        ssize_t n = read(fd, rec, sizeof(rec) - 1);
        if (n < 0 && errno == EPIPE) {
            continue;
        }
        if (n <= 0) {
            return;
        }
        rec[n] = '\0';
        rec[strcspn(rec, "\n")] = '\0';
        {
            const char *msg = strchr(rec, ';');
            add_xid(h, msg != NULL ? msg + 1 : rec);
        }
    }
}

static void read_xids(const sp_health_src_t *src, sp_health_node_t *h)
{
    struct stat st;
    int fd = open(src->kernel_log, O_RDONLY | O_NONBLOCK);

    if (fd < 0) {
        snprintf(h->xid_source, sizeof(h->xid_source), "cannot read %.100s: %s", src->kernel_log,
                 strerror(errno));
        return;
    }
    h->xid_readable = 1;
    copy_str(h->xid_source, sizeof(h->xid_source), src->kernel_log);
    if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode)) {
        read_kmsg(fd, h);
        close(fd);
        return;
    }
    {
        FILE *f = fdopen(fd, "r");
        char line[2048];
        if (f == NULL) {
            close(fd);
            return;
        }
        while (fgets(line, sizeof(line), f) != NULL) {
            line[strcspn(line, "\n")] = '\0';
            add_xid(h, line);
        }
        fclose(f);
    }
}

static void read_governor(const sp_health_src_t *src, sp_health_node_t *h)
{
    char first[32] = "", other[32] = "";

    for (int cpu = 0; cpu < 4096; cpu++) {
        char path[400], g[32];
        snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
                 src->sys_root, cpu);
        if (!read_line(path, g, sizeof(g))) {
            if (cpu > 0 && first[0] != '\0') {
                break; /* CPUs are numbered densely; offline ones have no cpufreq either */
            }
            continue;
        }
        if (first[0] == '\0') {
            snprintf(first, sizeof(first), "%s", g);
        } else if (strcmp(g, first) != 0 && other[0] == '\0') {
            snprintf(other, sizeof(other), "%s", g);
        }
    }
    if (first[0] == '\0') {
        snprintf(h->governor, sizeof(h->governor), "none (no cpufreq)");
    } else if (other[0] != '\0') {
        snprintf(h->governor, sizeof(h->governor), "mixed(%.11s,%.11s)", first, other);
    } else {
        copy_str(h->governor, sizeof(h->governor), first);
    }
}

void sp_health_read_host(const sp_health_src_t *src, sp_health_node_t *h)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

    read_ports(src, h);
    read_xids(src, h);
    read_governor(src, h);
    h->mem_gib = pages > 0 && psize > 0 ? (double)pages * (double)psize / (1u << 30) : -1.0;
}
