/* calib/tcp.h: the TCP network microbenchmark: time to move a message of
 * each size to a peer and get its one-byte acknowledgement, on loopback
 * (the peer is a forked child) or to a server on another host. Output is
 * a "network" measurement file that `calib fit` reads. */
#ifndef CALIB_TCP_H
#define CALIB_TCP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/core/util.h"

typedef struct calib_tcp_args {
    const char *connect; /* "HOST:PORT" of a running server; NULL: loopback */
    int listen_port;     /* > 0: be the server and serve until the client ends */
    const int64_t *sizes;
    size_t n_sizes;
    int iters; /* messages per size; the median is kept */
} calib_tcp_args_t;

/* Run the benchmark; the client writes out_path atomically and prints a
 * line per size to report (may be NULL). 0 or -1 (err filled). */
int calib_tcp_bench(const calib_tcp_args_t *a, const char *out_path, FILE *report, sim_err_t *err);

#endif
