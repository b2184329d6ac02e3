/* calib/net/rdma_bench.c: median time of one signaled RC RDMA WRITE per size
 * (latency; bandwidth = bytes / median). The client writes {"kind": "network",
 * "transport": "rdma", ..., "points": [{"bytes", "s"}]} to -o OUT.json.
 * Run --server on one host, --client HOST on the other; QP details go over
 * TCP (--port, default 18515). Exit 3 when the host has no RDMA device. */
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG "mooncake-calib-rdma"
#define DEFAULT_PORT "18515"
#define IB_PORT 1
#define GID_INDEX 0
#define MAX_SIZES 64
#define WIRE_LEN 46 /* qpn 4, psn 4, lid 2, gid 16, addr 8, rkey 4, size 8 */

typedef struct {
    uint32_t qpn, psn, rkey;
    uint16_t lid;
    uint8_t gid[16];
    uint64_t addr, size;
} peer_t;

typedef struct {
    struct ibv_device **list;
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_mr *mr;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_port_attr port;
    void *buf;
    const char *name;
} rdma_t;

static void die(const char *call, int err)
{
    fprintf(stderr, PROG ": %s failed: %s\n", call, strerror(err));
    exit(1);
}

/* Verbs calls that return an int give the errno value (or -1 with errno). */
static void check(int rc, const char *call)
{
    if (rc != 0)
        die(call, rc > 0 ? rc : errno);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- TCP ---- */

static void xfer(int fd, void *p, size_t n, int do_write)
{
    uint8_t *b = p;
    while (n > 0) {
        ssize_t r = do_write ? write(fd, b, n) : read(fd, b, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            fprintf(stderr, PROG ": TCP %s: %s\n", do_write ? "write" : "read",
                    r == 0 ? "peer closed the connection" : strerror(errno));
            exit(1);
        }
        b += r;
        n -= (size_t)r;
    }
}

static int tcp_open(const char *host, const char *port, int server)
{
    struct addrinfo *res, *ai, hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                                        .ai_flags = server ? AI_PASSIVE : 0};
    int fd = -1, one = 1;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, PROG ": getaddrinfo(%s:%s): %s\n", host ? host : "*", port, gai_strerror(rc));
        exit(1);
    }
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd < 0)
            continue;
        if (server) {
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 1) == 0)
                break;
        } else if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
            break;
        }
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        die(server ? "bind/listen" : "connect", errno);
    if (!server)
        return fd;
    fprintf(stderr, PROG ": listening on port %s\n", port);
    int c = accept(fd, NULL, NULL);
    if (c < 0)
        die("accept", errno);
    close(fd);
    return c;
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)(v & 0xff);
}

static uint64_t get_be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

static void send_peer(int fd, const peer_t *m)
{
    uint8_t w[WIRE_LEN];
    put_be(w, m->qpn, 4);
    put_be(w + 4, m->psn, 4);
    put_be(w + 8, m->lid, 2);
    memcpy(w + 10, m->gid, 16);
    put_be(w + 26, m->addr, 8);
    put_be(w + 34, m->rkey, 4);
    put_be(w + 38, m->size, 8);
    xfer(fd, w, sizeof w, 1);
}

static void recv_peer(int fd, peer_t *m)
{
    uint8_t w[WIRE_LEN];
    xfer(fd, w, sizeof w, 0);
    m->qpn = (uint32_t)get_be(w, 4);
    m->psn = (uint32_t)get_be(w + 4, 4);
    m->lid = (uint16_t)get_be(w + 8, 2);
    memcpy(m->gid, w + 10, 16);
    m->addr = get_be(w + 26, 8);
    m->rkey = (uint32_t)get_be(w + 34, 4);
    m->size = get_be(w + 38, 8);
}

/* ---- verbs ---- */

/* Exit 3 with one line when the host has no RDMA device at all. */
static void rdma_find(rdma_t *r, const char *want)
{
    int n = 0;
    r->list = ibv_get_device_list(&n);
    if (!r->list || n <= 0) {
        fprintf(stderr, PROG ": no RDMA device found (ibv_get_device_list returned none); "
                        "this benchmark needs an RDMA NIC\n");
        if (r->list)
            ibv_free_device_list(r->list);
        exit(3);
    }
    struct ibv_device *dev = NULL;
    for (int i = 0; i < n && !dev; i++)
        if (!want || strcmp(ibv_get_device_name(r->list[i]), want) == 0)
            dev = r->list[i];
    if (!dev) {
        fprintf(stderr, PROG ": RDMA device '%s' not found (the first is %s)\n", want,
                ibv_get_device_name(r->list[0]));
        exit(1);
    }
    r->name = ibv_get_device_name(dev);
    if (!(r->ctx = ibv_open_device(dev)))
        die("ibv_open_device", errno);
}

static void rdma_setup(rdma_t *r, size_t len, peer_t *me)
{
    union ibv_gid gid;
    check(ibv_query_port(r->ctx, IB_PORT, &r->port), "ibv_query_port");
    check(ibv_query_gid(r->ctx, IB_PORT, GID_INDEX, &gid), "ibv_query_gid");
    if (!(r->pd = ibv_alloc_pd(r->ctx)))
        die("ibv_alloc_pd", errno);
    int rc = posix_memalign(&r->buf, 4096, len);
    if (rc != 0)
        die("posix_memalign", rc);
    memset(r->buf, 0x5a, len);
    r->mr = ibv_reg_mr(r->pd, r->buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!r->mr)
        die("ibv_reg_mr", errno);
    if (!(r->cq = ibv_create_cq(r->ctx, 16, NULL, NULL, 0)))
        die("ibv_create_cq", errno);
    struct ibv_qp_init_attr qa = {.send_cq = r->cq, .recv_cq = r->cq, .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = 16, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1}};
    if (!(r->qp = ibv_create_qp(r->pd, &qa)))
        die("ibv_create_qp", errno);
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = IB_PORT,
                            .qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE};
    check(ibv_modify_qp(r->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
          "ibv_modify_qp(INIT)");

    me->qpn = r->qp->qp_num;
    me->psn = (uint32_t)(((unsigned)getpid() * 2654435761u) ^ (unsigned)time(NULL)) & 0xffffffu;
    me->lid = r->port.lid;
    memcpy(me->gid, gid.raw, 16);
    me->addr = (uint64_t)(uintptr_t)r->buf;
    me->rkey = r->mr->rkey;
    me->size = (uint64_t)len;
}

/* INIT -> RTR -> RTS against the peer; is_global with its GID (RoCE). */
static void rdma_connect(rdma_t *r, const peer_t *me, const peer_t *peer)
{
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR, .path_mtu = r->port.active_mtu, .dest_qp_num = peer->qpn,
                            .rq_psn = peer->psn, .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
                            .ah_attr = {.is_global = 1, .dlid = peer->lid, .sl = 0, .port_num = IB_PORT,
                                        .grh = {.sgid_index = GID_INDEX, .hop_limit = 64}}};
    memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
    check(ibv_modify_qp(r->qp, &a,
                        IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                            IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER),
          "ibv_modify_qp(RTR)");
    struct ibv_qp_attr b = {.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
                            .sq_psn = me->psn, .max_rd_atomic = 1};
    check(ibv_modify_qp(r->qp, &b,
                        IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                            IBV_QP_MAX_QP_RD_ATOMIC),
          "ibv_modify_qp(RTS)");
}

static void rdma_free(rdma_t *r)
{
    if (r->qp) check(ibv_destroy_qp(r->qp), "ibv_destroy_qp");
    if (r->cq) check(ibv_destroy_cq(r->cq), "ibv_destroy_cq");
    if (r->mr) check(ibv_dereg_mr(r->mr), "ibv_dereg_mr");
    if (r->pd) check(ibv_dealloc_pd(r->pd), "ibv_dealloc_pd");
    if (r->ctx) check(ibv_close_device(r->ctx), "ibv_close_device");
    if (r->list)
        ibv_free_device_list(r->list);
    free(r->buf);
}

/* One signaled RDMA WRITE of `bytes`; returns seconds until its completion. */
static double rdma_write_once(rdma_t *r, const peer_t *peer, size_t bytes)
{
    struct ibv_sge sge = {.addr = (uint64_t)(uintptr_t)r->buf, .length = (uint32_t)bytes, .lkey = r->mr->lkey};
    struct ibv_send_wr *bad = NULL, wr = {.wr_id = 1, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
                                          .send_flags = IBV_SEND_SIGNALED,
                                          .wr.rdma = {.remote_addr = peer->addr, .rkey = peer->rkey}};
    struct ibv_wc wc;
    double t0 = now_s();
    check(ibv_post_send(r->qp, &wr, &bad), "ibv_post_send");
    int n;
    while ((n = ibv_poll_cq(r->cq, 1, &wc)) == 0)
        ;
    double t1 = now_s();
    if (n < 0)
        die("ibv_poll_cq", errno);
    if (wc.status != IBV_WC_SUCCESS) {
        fprintf(stderr, PROG ": RDMA WRITE of %zu bytes completed with %s\n", bytes, ibv_wc_status_str(wc.status));
        exit(1);
    }
    return t1 - t0;
}

/* ---- output ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned)(unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

/* The port's data rate in bytes/s from its active width and speed codes
 * (verbs.h), or 0 when a code is unknown. */
static double port_bytes_per_s(const struct ibv_port_attr *pa)
{
    static const struct { int code; double gbps; } speeds[] = {
        {1, 2.5}, {2, 5}, {4, 10}, {8, 10.3125}, {16, 14.0625}, {32, 25.78125},
        {64, 50}, {128, 100}, {256, 200},
    };
    static const struct { int code; int lanes; } widths[] = {{1, 1}, {2, 4}, {4, 8}, {8, 12}, {16, 2}};
    double gbps = 0;
    int lanes = 0;
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++)
        if (speeds[i].code == pa->active_speed)
            gbps = speeds[i].gbps;
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
        if (widths[i].code == pa->active_width)
            lanes = widths[i].lanes;
    return gbps * lanes * 1e9 / 8;
}

static void write_json(const char *out, const char *host, const char *dev, double nic,
                       const size_t *sizes, const double *med, int n)
{
    char tmp[4096], date[16];
    time_t t = time(NULL);
    struct tm tm;
    if (!localtime_r(&t, &tm))
        die("localtime_r", errno);
    strftime(date, sizeof date, "%Y-%m-%d", &tm);
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    FILE *f = fopen(tmp, "w");
    if (!f)
        die(tmp, errno);
    /* verbs device names are plain identifiers; only the host needs escaping */
    fprintf(f, "{\n  \"kind\": \"network\",\n  \"transport\": \"rdma\",\n"
               "  \"source\": \"calib/net RDMA WRITE benchmark, %s\",\n  \"date\": \"%s\",\n  \"host\": ",
            dev, date);
    json_str(f, host);
    fprintf(f, ",\n  \"device\": \"%s\",\n", dev);
    if (nic > 0) /* one port: the simulator's efficiency is relative to it */
        fprintf(f, "  \"nic_bytes_per_s\": %.6g,\n", nic);
    fprintf(f, "  \"points\": [\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "    {\"bytes\": %zu, \"s\": %.9g}%s\n", sizes[i], med[i], i + 1 < n ? "," : "");
    fprintf(f, "  ]\n}\n");
    if (fclose(f) != 0)
        die("fclose", errno);
    if (rename(tmp, out) != 0)
        die("rename", errno);
}

/* ---- main ---- */

static void usage(FILE *f)
{
    fprintf(f, "usage: " PROG " --server [--port P] [--dev NAME]\n"
               "       " PROG " --client HOST [--port P] [--dev NAME] [--sizes LIST] [--iters N] -o OUT.json\n"
               "  --sizes  comma list of message sizes in bytes (default 4096,65536,1048576,\n"
               "           16777216,134217728,1073741824; K/M/G suffixes accepted)\n"
               "  --iters  timed WRITEs per size (default 20; 5 for sizes >= 128 MB)\n"
               "  --port   TCP port for the QP exchange (default " DEFAULT_PORT ")\n"
               "  --dev    RDMA device name (default: the first one)\n"
               "exit status: 0 ok, 1 error, 2 usage, 3 no RDMA device\n");
}

static int parse_sizes(const char *s, size_t *out)
{
    int n = 0;
    while (*s) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (end == s || errno)
            return -1;
        if (*end == 'K' || *end == 'k')
            v <<= 10, end++;
        else if (*end == 'M' || *end == 'm')
            v <<= 20, end++;
        else if (*end == 'G' || *end == 'g')
            v <<= 30, end++;
        if (v == 0 || v > 0x80000000ull || n >= MAX_SIZES || (*end && *end != ','))
            return -1;
        out[n++] = (size_t)v;
        s = *end ? end + 1 : end;
    }
    return n;
}

/* The command line, parsed. */
typedef struct args {
    size_t sizes[MAX_SIZES];
    int nsizes, server, iters, iters_set;
    const char *host, *port, *dev, *out;
} args_t;

/* Parse argv into *a (defaults first). -1 to go on, else the status to
 * exit with: 0 after --help, 2 for a bad command line (said on stderr). */
static int parse_args(int argc, char **argv, args_t *a)
{
    static const struct option opts[] = {
        {"server", no_argument, NULL, 'S'}, {"client", required_argument, NULL, 'c'},
        {"port", required_argument, NULL, 'p'}, {"dev", required_argument, NULL, 'd'},
        {"sizes", required_argument, NULL, 's'}, {"iters", required_argument, NULL, 'n'},
        {"out", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    *a = (args_t){.sizes = {4096, 65536, 1u << 20, 16u << 20, 128u << 20, 1u << 30},
                  .nsizes = 6, .iters = 20, .port = DEFAULT_PORT};
    int opt;
    while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (opt) {
        case 'S': a->server = 1; break;
        case 'c': a->host = optarg; break;
        case 'p': a->port = optarg; break;
        case 'd': a->dev = optarg; break;
        case 'o': a->out = optarg; break;
        case 'h': usage(stdout); return 0;
        case 's':
            if ((a->nsizes = parse_sizes(optarg, a->sizes)) <= 0) {
                fprintf(stderr, PROG ": bad --sizes '%s'\n", optarg);
                return 2;
            }
            break;
        case 'n':
            a->iters_set = 1;
            if ((a->iters = atoi(optarg)) < 1) {
                fprintf(stderr, PROG ": bad --iters '%s'\n", optarg);
                return 2;
            }
            break;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc || a->server == (a->host != NULL) || (!a->server && !a->out)) {
        usage(stderr);
        return 2;
    }
    return -1;
}

/* The server: wait for one client on port, expose a buffer of the size it
 * asks for to its WRITEs, and return once it says it is done. */
static void serve(rdma_t *r, const char *port)
{
    peer_t me, peer;
    int fd = tcp_open(NULL, port, 1);
    recv_peer(fd, &peer);
    rdma_setup(r, (size_t)peer.size, &me);
    rdma_connect(r, &me, &peer);
    send_peer(fd, &me); /* only once this side is RTR */
    char done;
    xfer(fd, &done, 1, 0);
    fprintf(stderr, PROG ": client finished; exiting\n");
    close(fd);
}

/* med[i] = the median seconds of a->sizes[i]'s timed WRITEs to peer (after
 * one warm-up each: --iters of them, by default 5 for sizes of 128 MB
 * and up), with one table row per size on stdout as it is measured. */
static void measure(rdma_t *r, const peer_t *peer, const args_t *a, double *med)
{
    double *t = malloc((size_t)(a->iters > 5 ? a->iters : 5) * sizeof *t);
    if (!t)
        die("malloc", errno);
    printf("%-12s %6s %14s %12s\n", "bytes", "iters", "median_s", "GB/s");
    for (int i = 0; i < a->nsizes; i++) {
        size_t bytes = a->sizes[i];
        int n = a->iters_set ? a->iters : (bytes >= (128u << 20) ? 5 : a->iters);
        rdma_write_once(r, peer, bytes); /* warm-up */
        for (int k = 0; k < n; k++)
            t[k] = rdma_write_once(r, peer, bytes);
        qsort(t, (size_t)n, sizeof t[0], cmp_double);
        med[i] = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
        printf("%-12zu %6d %14.9f %12.3f\n", bytes, n, med[i], (double)bytes / med[i] / 1e9);
        fflush(stdout);
    }
    free(t);
}

/* The client: a buffer as large as the largest size, the QP exchange with
 * the server at a->host, the measurements, then the server released and
 * a->out written. Exits 1 when a size exceeds the port's or the server's
 * limit. */
static void run_client(rdma_t *r, const args_t *a)
{
    peer_t me, peer;
    size_t maxb = 0;
    for (int i = 0; i < a->nsizes; i++)
        maxb = a->sizes[i] > maxb ? a->sizes[i] : maxb;
    rdma_setup(r, maxb, &me);
    if (maxb > r->port.max_msg_sz) {
        fprintf(stderr, PROG ": %zu bytes exceeds the port's max message size %u\n", maxb, r->port.max_msg_sz);
        exit(1);
    }
    int fd = tcp_open(a->host, a->port, 0);
    send_peer(fd, &me);
    recv_peer(fd, &peer);
    if (peer.size < (uint64_t)maxb) {
        fprintf(stderr, PROG ": server buffer %llu bytes < %zu\n", (unsigned long long)peer.size, maxb);
        exit(1);
    }
    rdma_connect(r, &me, &peer);
    double med[MAX_SIZES];
    measure(r, &peer, a, med);
    char done = 'X';
    xfer(fd, &done, 1, 1);
    close(fd);
    write_json(a->out, a->host, r->name, port_bytes_per_s(&r->port), a->sizes, med, a->nsizes);
}

int main(int argc, char **argv)
{
    args_t a;
    int st = parse_args(argc, argv, &a);
    if (st >= 0)
        return st;
    rdma_t r;
    memset(&r, 0, sizeof r);
    signal(SIGPIPE, SIG_IGN); /* a vanished peer shows up as a write error */
    rdma_find(&r, a.dev);
    if (a.server) {
        serve(&r, a.port);
    } else {
        run_client(&r, &a);
        fprintf(stderr, PROG ": wrote %s\n", a.out);
    }
    rdma_free(&r);
    return 0;
}
