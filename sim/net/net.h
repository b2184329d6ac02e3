/* sim/net/net.h: the fluid network. Every node has NIC egress and ingress
 * capacity; a transfer is a flow between two nodes that, after a setup
 * latency, shares bandwidth max-min fairly over its sender's egress and
 * its receiver's ingress (optionally under its own rate cap). Rates are
 * recomputed only when a flow starts, ends or changes its cap, and only
 * for the flows linked to it through shared NICs: no per-packet events.
 * Invariant: every byte of a flow is accounted to its link class and to
 * its sender when it moves. */
#ifndef SIM_NET_H
#define SIM_NET_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "sim/core/evq.h"
#include "sim/core/obs.h"
#include "sim/core/util.h"

/* What a flow carries, for accounting. */
enum {
    SIM_LINK_PD = 0, /* KV stream prefill -> decode */
    SIM_LINK_FETCH,  /* remote prefix fetch */
    SIM_LINK_STAGE,  /* chunked pipeline stage boundary */
    SIM_LINK_REPL,   /* hot-spot replication */
    SIM_N_NET_LINKS
};

/* A transport profile: per-transfer setup latency and the share of the NIC
 * bandwidth one node achieves, so a transfer of S bytes alone takes
 * latency + S / (efficiency x NIC): achieved bandwidth grows with size. */
typedef struct sim_net_profile {
    const char *name;
    const char *help;
    const char *source;
    double latency_s;
    double efficiency;
    double fit_max_rel_err; /* of the fit to its measurements */
} sim_net_profile_t;

/* Fill *out with the named profile, fitted (GSL weighted least squares,
 * relative error) to the paper's measurements of that transport. -1 for
 * an unknown name. Pure: same name, same numbers. */
int sim_net_profile_get(const char *name, sim_net_profile_t *out);
void sim_net_profile_names(char *buf, size_t len);

/* Fill *out from a network calibration file (`calib fit` of calib/net or
 * `calib tcp` measurements; "network": latency_s, bandwidth_bytes_per_s,
 * max_rel_err). The efficiency is the fitted bandwidth over the file's
 * "nic_bytes_per_s" (the measured testbed's NICs) when it has one, else
 * over node_nic_bytes_per_s (the simulated node's). out->name is name,
 * which must outlive *out. -1 with a located error otherwise. */
int sim_net_profile_file(const char *name, const char *path, double node_nic_bytes_per_s,
                         sim_net_profile_t *out, sim_err_t *err);

typedef struct sim_net sim_net_t;

/* A network of n_nodes nodes with nic_bytes_per_s[i] of NIC bandwidth
 * each, scheduling its events on q. Free with sim_net_free (NULL ok). */
sim_net_t *sim_net_new(sim_evq_t *q, int n_nodes, const double *nic_bytes_per_s,
                       const sim_net_profile_t *profile);
void sim_net_free(sim_net_t *n);
/* Tell obs (NULL: nobody) of every flow that completes; obs outlives n. */
void sim_net_set_obs(sim_net_t *n, const sim_obs_t *obs);

/* Start moving bytes from src to dst (src != dst); when the last byte
 * arrives, done(ctx, obj, arg) runs as an event (ctx is the queue's).
 * cap_bytes_per_s > 0 caps the flow's rate (0: no cap). Returns its id. */
uint32_t sim_net_start(sim_net_t *n, int src, int dst, double bytes, int link, double cap_bytes_per_s,
                       sim_event_fn done, void *obj, int64_t arg);
/* Abandon a flow (its done callback never runs); bytes moved so far stay
 * counted. */
void sim_net_cancel(sim_net_t *n, uint32_t flow);
/* Change a running flow's cap (0 lifts it); rates are recomputed. */
void sim_net_set_cap(sim_net_t *n, uint32_t flow, double cap_bytes_per_s);

/* The rate flow (started, not finished) moves at now, bytes/s: 0 while
 * it is being set up. */
double sim_net_rate(const sim_net_t *n, uint32_t flow);
/* The bytes flow (started, not finished) has still to move as of now.
 * A flow's progress is brought forward only when its own rate changes, so
 * this value depends on nothing else that happened on the network, and
 * reading the counters (sim_net_settle) never changes it. */
double sim_net_left(const sim_net_t *n, uint32_t flow);
/* on: refill every flow from scratch at each change, O(flows^2), instead
 * of only the changed flow's component; the same rates and completions,
 * as the reference the refill is tested against. */
void sim_net_set_reference(sim_net_t *n, int on);

/* Predicted time to move bytes from src to dst if started now: setup
 * latency plus bytes at the fair share a new flow would get, rounded to
 * the ns and held at SIM_MAX_DURATION_NS. O(1). */
sim_time_t sim_net_estimate_ns(const sim_net_t *n, int src, int dst, double bytes);
/* The sending side of that fair share: src's NIC over its flows out plus
 * one. sim_net_estimate_ns never grows as it grows (the same doubles), so
 * among sources for one destination the largest share sends soonest. */
double sim_net_send_share(const sim_net_t *n, int src);
/* The receiving side: dst's NIC over its flows in plus one. The estimate
 * depends on src and dst only through the two shares. */
double sim_net_recv_share(const sim_net_t *n, int dst);
/* Both shares of every node, [node]: valid until the next flow starts or ends. */
const double *sim_net_send_shares(const sim_net_t *n);
const double *sim_net_recv_shares(const sim_net_t *n);
/* Each node's pair of shares (send, receive) as an id below *n_ids:
 * nodes with equal ids have equal pairs; NO_SHARE_ID (rare) compares
 * equal to none. */
#define NO_SHARE_ID UINT32_MAX
const uint32_t *sim_net_share_ids(const sim_net_t *n, size_t *n_ids);
/* The nodes whose share id changed since the last call, each once (in
 * the order of their first change); the first call starts the record
 * and returns none. Valid until the next flow starts or ends. */
const uint32_t *sim_net_share_changes(sim_net_t *n, size_t *count);

/* Flows started and not finished. */
size_t sim_net_active(const sim_net_t *n);

typedef struct sim_net_link_stats {
    double bytes;     /* moved so far */
    sim_time_t busy_ns; /* time with at least one flow of the class moving data */
    sim_time_t flow_ns; /* sum of the flows' durations, setup included */
    int64_t flows;    /* finished */
} sim_net_link_stats_t;

/* Bring the byte counters and busy times up to now (call before reading
 * them); moves no flow. */
void sim_net_settle(sim_net_t *n);
sim_net_link_stats_t sim_net_link_stats(const sim_net_t *n, int link);
/* Bytes node i has sent since the last sim_net_take_sent (then reset). */
double sim_net_take_sent(sim_net_t *n, int node);
double sim_net_nic_bytes_per_s(const sim_net_t *n, int node);

/* $.transfer of a run's summary, the network's part: the transport
 * profile (name, latency, efficiency) and, per link class (pd, fetch,
 * stage, replication), bytes moved, busy time, summed flow time and
 * finished flows, numbers rounded as sim_metrics_num does;
 * sim_metrics_summary adds the host-side copies. Reads the counters as
 * they stand (sim_net_settle first to bring them up to now). New
 * reference (the caller json_decref's it or hands it on). O(1). */
json_t *sim_net_summary_json(const sim_net_t *n, const sim_net_profile_t *prof);

#endif
