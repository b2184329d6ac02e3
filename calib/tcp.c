/* calib/tcp.c: see tcp.h. Protocol: the client sends an 8-byte size then
 * that many bytes; the server reads them all and answers one byte; a size
 * of 0 ends the session. Timing is CLOCK_MONOTONIC around one message. */
#include "calib/tcp.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "sim/exp/out.h"

/* Move all n bytes through fd (write when out, else read), retrying on
 * EINTR and short transfers. -1 on error or end of stream. */
static int io_all(int fd, char *p, size_t n, int out)
{
    while (n > 0) {
        ssize_t k = out ? write(fd, p, n) : read(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int write_all(int fd, const char *p, size_t n) { return io_all(fd, (char *)p, n, 1); }
static int read_all(int fd, char *p, size_t n) { return io_all(fd, p, n, 0); }

/* Serve one client on fd until it sends size 0. */
static int serve(int fd)
{
    size_t cap = 1 << 20;
    char *buf = malloc(cap);
    uint64_t size;
    int rc = -1;
    while (buf && read_all(fd, (char *)&size, sizeof size) == 0) {
        if (size == 0) {
            rc = 0;
            break;
        }
        for (uint64_t left = size; left > 0;) {
            size_t k = left < cap ? (size_t)left : cap;
            if (read_all(fd, buf, k) != 0)
                goto out;
            left -= k;
        }
        if (write_all(fd, "k", 1) != 0)
            break;
    }
out:
    free(buf);
    return rc;
}

static int listen_on(int port, sim_err_t *err)
{
    int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (s < 0)
        return sim_errf(err, "calib tcp: socket: %s", strerror(errno));
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_ANY)};
    if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 1) != 0) {
        int e = errno;
        close(s);
        return sim_errf(err, "calib tcp: port %d: %s", port, strerror(e));
    }
    return s;
}

static int connect_to(const char *host, const char *port, sim_err_t *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0)
        return sim_errf(err, "calib tcp: %s:%s: %s", host, port, gai_strerror(rc));
    int s = -1;
    for (struct addrinfo *ai = res; ai && s < 0; ai = ai->ai_next) {
        s = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (s >= 0 && connect(s, ai->ai_addr, ai->ai_addrlen) != 0) {
            close(s);
            s = -1;
        }
    }
    freeaddrinfo(res);
    if (s < 0)
        return sim_errf(err, "calib tcp: cannot connect to %s:%s", host, port);
    int one = 1;
    setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return s;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Time every size on a connected socket; json points appended. */
static int measure(int fd, const calib_tcp_args_t *a, json_t *points, FILE *report, sim_err_t *err)
{
    int64_t mx = 0;
    for (size_t i = 0; i < a->n_sizes; i++)
        mx = a->sizes[i] > mx ? a->sizes[i] : mx;
    char *buf = sim_xcalloc((size_t)mx + 1, 1, "tcp buffer");
    double *t = sim_xmalloc((size_t)a->iters * sizeof *t, "tcp times");
    int rc = 0;
    for (size_t i = 0; i < a->n_sizes && rc == 0; i++) {
        uint64_t size = (uint64_t)a->sizes[i];
        for (int k = 0; k < a->iters + 1 && rc == 0; k++) { /* the first is a warm-up */
            char ack;
            double t0 = sim_mono_s();
            if (write_all(fd, (const char *)&size, sizeof size) != 0 ||
                write_all(fd, buf, (size_t)size) != 0 || read_all(fd, &ack, 1) != 0)
                rc = sim_errf(err, "calib tcp: the peer closed the connection");
            if (k > 0)
                t[k - 1] = sim_mono_s() - t0;
        }
        if (rc)
            break;
        qsort(t, (size_t)a->iters, sizeof *t, cmp_dbl);
        double med = t[a->iters / 2];
        json_t *p = json_object();
        json_object_set_new(p, "bytes", json_integer((json_int_t)size));
        json_object_set_new(p, "s", json_real(med));
        json_array_append_new(points, p);
        if (report)
            fprintf(report, "  %12llu bytes  %10.6f s  %8.3f GB/s\n", (unsigned long long)size, med,
                    (double)size / med / 1e9);
    }
    uint64_t end = 0;
    write_all(fd, (const char *)&end, sizeof end);
    sim_free(buf);
    sim_free(t);
    return rc;
}

int calib_tcp_bench(const calib_tcp_args_t *a, const char *out_path, FILE *report, sim_err_t *err)
{
    if (a->listen_port > 0) { /* server for a remote client */
        int ls = listen_on(a->listen_port, err);
        if (ls < 0)
            return -1;
        int fd = accept(ls, NULL, NULL);
        close(ls);
        if (fd < 0)
            return sim_errf(err, "calib tcp: accept: %s", strerror(errno));
        int rc = serve(fd);
        close(fd);
        return rc == 0 ? 0 : sim_errf(err, "calib tcp: the client went away");
    }
    char host[256] = "127.0.0.1", port[32] = "0";
    pid_t child = -1;
    if (a->connect) {
        const char *colon = strrchr(a->connect, ':');
        if (!colon)
            return sim_errf(err, "--connect %s: expected HOST:PORT", a->connect);
        snprintf(host, sizeof host, "%.*s", (int)(colon - a->connect), a->connect);
        snprintf(port, sizeof port, "%s", colon + 1);
    } else { /* loopback: a forked child serves an ephemeral port */
        int ls = listen_on(0, err);
        if (ls < 0)
            return -1;
        struct sockaddr_in sa;
        socklen_t sl = sizeof sa;
        getsockname(ls, (struct sockaddr *)&sa, &sl);
        snprintf(port, sizeof port, "%d", ntohs(sa.sin_port));
        fflush(NULL);
        child = fork();
        if (child == 0) {
            int fd = accept(ls, NULL, NULL);
            _exit(fd >= 0 && serve(fd) == 0 ? 0 : 1);
        }
        close(ls);
        if (child < 0)
            return sim_errf(err, "calib tcp: fork: %s", strerror(errno));
    }
    int fd = connect_to(host, port, err), rc = -1;
    json_t *root = json_object(), *points = json_array();
    if (fd >= 0) {
        if (report)
            fprintf(report, "TCP to %s:%s\n", host, port);
        rc = measure(fd, a, points, report, err);
        close(fd);
    }
    if (child > 0)
        waitpid(child, NULL, 0);
    if (rc == 0) {
        char date[16];
        time_t now = time(NULL);
        strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
        json_object_set_new(root, "kind", json_string("network"));
        json_object_set_new(root, "transport", json_string("tcp"));
        json_object_set_new(root, "source", json_string(a->connect ? "calib tcp benchmark, two hosts"
                                                                   : "calib tcp benchmark, loopback"));
        json_object_set_new(root, "date", json_string(date));
        json_object_set_new(root, "host", json_string(a->connect ? host : "loopback"));
        json_object_set(root, "points", points);
        rc = sim_out_write_json(out_path, root, err);
    }
    json_decref(points);
    json_decref(root);
    return rc;
}
