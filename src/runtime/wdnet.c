/* The watchdog's own channel (see wdnet.h): UDP datagrams to rank 0, so the watchdog threads
 * never call MPI while the main threads may be inside it. */
#define _DEFAULT_SOURCE /* IFF_UP, IFF_LOOPBACK */
#include "wdnet.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "timeutil.h"

#define WDNET_MAGIC 0x53505744u /* "SPWD" */
#define WDNET_MAX_ADDRS 8
#define WDNET_MAX_PAYLOAD 512

/* Where rank 0 listens, as broadcast at the start. */
typedef struct {
    uint64_t nonce;
    uint32_t addr[WDNET_MAX_ADDRS]; /* IPv4, network order */
    uint16_t port;                  /* network order; 0: rank 0 has no channel */
    uint16_t naddr;
} wdnet_where_t;

typedef struct {
    uint32_t magic;
    uint32_t len;
    uint64_t nonce;
} wdnet_head_t;

struct sp_wdnet {
    int fd;
    int rank;
    wdnet_where_t where;
};

/* Rank 0's IPv4 addresses: every interface that is up, loopback first (ranks on its own host),
 * then the others in the order the system lists them. */
static void own_addresses(wdnet_where_t *w)
{
    struct ifaddrs *ifa = NULL;

    w->addr[w->naddr++] = htonl(INADDR_LOOPBACK);
    if (getifaddrs(&ifa) != 0) {
        return;
    }
    for (struct ifaddrs *i = ifa; i != NULL && w->naddr < WDNET_MAX_ADDRS; i = i->ifa_next) {
        if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
            !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK)) {
            continue;
        }
        w->addr[w->naddr++] = ((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr.s_addr;
    }
    freeifaddrs(ifa);
}

/* Rank 0: a non-blocking UDP socket on an ephemeral port of every interface; -1 on failure. */
static int listen_socket(uint16_t *port_p)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0) {
        return -1;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_ANY);
    sa.sin_port = 0;
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        close(fd);
        return -1;
    }
    *port_p = sa.sin_port;
    return fd;
}

static uint64_t make_nonce(void)
{
    uint64_t x = sp_time_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL);

    /* splitmix64's finaliser: the bits of the clock and pid spread over the word */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

sp_status_t sp_wdnet_open(MPI_Comm comm, sp_wdnet_t **net_p)
{
    sp_wdnet_t *net = calloc(1, sizeof(*net));
    int ok;

    *net_p = NULL;
    if (net == NULL) {
        return SP_ERR_NOMEM;
    }
    MPI_Comm_rank(comm, &net->rank);
    net->fd = -1;
    if (net->rank == 0) {
        uint16_t port = 0;
        net->fd = listen_socket(&port);
        if (net->fd >= 0) {
            net->where.nonce = make_nonce();
            net->where.port = port;
            own_addresses(&net->where);
        }
    }
    MPI_Bcast(&net->where, (int)sizeof(net->where), MPI_BYTE, 0, comm);
    if (net->rank != 0 && net->where.port != 0) {
        net->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    }
    ok = net->where.port != 0 && net->fd >= 0;
    if (!ok && net->fd >= 0) {
        close(net->fd);
        net->fd = -1;
    }
    *net_p = net;
    return SP_OK;
}

int sp_wdnet_ready(const sp_wdnet_t *net)
{
    return net != NULL && net->fd >= 0;
}

void sp_wdnet_send(sp_wdnet_t *net, const void *msg, size_t len)
{
    unsigned char buf[sizeof(wdnet_head_t) + WDNET_MAX_PAYLOAD];
    wdnet_head_t h = {WDNET_MAGIC, (uint32_t)len, 0};

    if (!sp_wdnet_ready(net) || net->rank == 0 || len > WDNET_MAX_PAYLOAD) {
        return;
    }
    h.nonce = net->where.nonce;
    memcpy(buf, &h, sizeof(h));
    memcpy(buf + sizeof(h), msg, len);
    /* to every address rank 0 has: the ones this host cannot reach fail or vanish, the one
     * that arrives is enough (rank 0 keeps the latest per rank) */
    for (int i = 0; i < net->where.naddr && i < WDNET_MAX_ADDRS; i++) {
        struct sockaddr_in sa;
        memset(&sa, 0, sizeof(sa));
        sa.sin_family = AF_INET;
        sa.sin_port = net->where.port;
        sa.sin_addr.s_addr = net->where.addr[i];
        (void)sendto(net->fd, buf, sizeof(h) + len, MSG_DONTWAIT, (struct sockaddr *)&sa,
                     sizeof(sa));
    }
}

int sp_wdnet_recv(sp_wdnet_t *net, void *msg, size_t len)
{
    unsigned char buf[sizeof(wdnet_head_t) + WDNET_MAX_PAYLOAD + 1];

    if (!sp_wdnet_ready(net) || net->rank != 0 || len > WDNET_MAX_PAYLOAD) {
        return 0;
    }
    for (;;) {
        wdnet_head_t h;
        ssize_t got = recvfrom(net->fd, buf, sizeof(buf), MSG_DONTWAIT, NULL, NULL);
        if (got < 0) {
            return 0; /* EAGAIN: nothing (more) to read; other errors: treated the same */
        }
        if ((size_t)got != sizeof(h) + len) {
            continue; /* not one of ours */
        }
        memcpy(&h, buf, sizeof(h));
        if (h.magic != WDNET_MAGIC || h.len != len || h.nonce != net->where.nonce) {
            continue; /* another job's, or a stray */
        }
        memcpy(msg, buf + sizeof(h), len);
        return 1;
    }
}

void sp_wdnet_close(sp_wdnet_t *net)
{
    if (net == NULL) {
        return;
    }
    if (net->fd >= 0) {
        close(net->fd);
    }
    free(net);
}
