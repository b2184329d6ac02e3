/* sim/net/net_profile.c: transport profiles (plug-ins) fitted to measured
 * latency-by-size curves: time(S) = latency + S / (efficiency x NIC).
 * The points are the Mooncake FAST'25 paper's Fig. 12 (Transfer Engine vs
 * TCP, 4 x 200 Gbps RoCE, concurrency 64, read from the figure).
 * Calibration files are checked for physics where they are read: every
 * number finite and within the plausible ranges below. */
#include "sim/net/net.h"

#include <gsl/gsl_fit.h>
#include <math.h>
#include <string.h>

#include "sim/core/jsonx.h"
#include "sim/core/registry.h"

typedef struct profile_data {
    const char *name;
    const char *help;
    const char *source;
    double nic_bytes_per_s; /* of the testbed the points come from */
    size_t n;
    const double *size_gb;
    const double *time_s;
} profile_data_t;

static const double fig12_size_gb[] = {1, 5, 10, 20, 30, 40, 50, 60, 70, 90, 100};
static const double fig12_te_s[] = {0.014, 0.06, 0.115, 0.227, 0.341, 0.452,
                                    0.554, 0.671, 0.776, 0.994, 1.104};
static const double fig12_size_tcp_gb[] = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
static const double fig12_tcp_s[] = {0.071, 0.22,  0.273, 0.542, 0.808, 1.082,
                                     1.339, 1.565, 1.858, 2.193, 2.334, 2.686};

static const profile_data_t rdma = {
    .name = "rdma",
    .help = "RDMA through Mooncake's Transfer Engine",
    .source = "FAST'25 Fig. 12, Transfer Engine on 4 x 200 Gbps RoCE (the 80 GB point is "
              "missing in the figure)",
    .nic_bytes_per_s = 100e9,
    .n = sizeof fig12_size_gb / sizeof fig12_size_gb[0],
    .size_gb = fig12_size_gb,
    .time_s = fig12_te_s,
};

static const profile_data_t tcp = {
    .name = "tcp",
    .help = "TCP over the same NICs",
    .source = "FAST'25 Fig. 12, TCP on 4 x 200 Gbps",
    .nic_bytes_per_s = 100e9,
    .n = sizeof fig12_size_tcp_gb / sizeof fig12_size_tcp_gb[0],
    .size_gb = fig12_size_tcp_gb,
    .time_s = fig12_tcp_s,
};

static const profile_data_t *const profile_registry[] = {&rdma, &tcp};

/* Plausible values in a network calibration file. A bandwidth between
 * 1 MB/s (slower than any NIC a KVCache transfer engine runs on: 10 Mbps
 * Ethernet moves 1.25 MB/s) and 10 TB/s (25 x a node of 8 x 400 Gbps
 * NICs); a per-transfer setup latency between 0 and 10 s (RDMA setup is
 * microseconds, TCP's milliseconds). */
#define NET_MIN_BYTES_PER_S 1e6
#define NET_MAX_BYTES_PER_S 1e13
#define NET_MAX_LATENCY_S 10.0

/* A bandwidth of file at at within the plausible range. 0 or -1. */
static int plausible_bw(const char *file, const char *at, double bw, sim_err_t *err)
{
    if (!(bw >= NET_MIN_BYTES_PER_S && bw <= NET_MAX_BYTES_PER_S))
        return sim_errf(err, "%s: %s: %g bytes/s is not a plausible bandwidth (from %g to %g)",
                        file, at, bw, NET_MIN_BYTES_PER_S, NET_MAX_BYTES_PER_S);
    return 0;
}

void sim_net_profile_names(char *buf, size_t len)
{
    sim_registry_names((const void *const *)profile_registry, SIM_REGISTRY_LEN(profile_registry),
                       buf, len);
}

int sim_net_profile_get(const char *name, sim_net_profile_t *out)
{
    const profile_data_t *d = sim_registry_find((const void *const *)profile_registry,
                                                SIM_REGISTRY_LEN(profile_registry), name);
    if (!d)
        return -1;
    double x[16], w[16];
    SIM_ASSERT(d->n <= 16);
    for (size_t i = 0; i < d->n; i++) {
        x[i] = d->size_gb[i] * 1e9;
        w[i] = 1.0 / (d->time_s[i] * d->time_s[i]); /* relative error */
    }
    double c0, c1, cov00, cov01, cov11, chisq;
    gsl_fit_wlinear(x, 1, w, 1, d->time_s, 1, d->n, &c0, &c1, &cov00, &cov01, &cov11, &chisq);
    double max_rel = 0;
    for (size_t i = 0; i < d->n; i++) {
        double rel = fabs(c0 + c1 * x[i] - d->time_s[i]) / d->time_s[i];
        max_rel = rel > max_rel ? rel : max_rel;
    }
    memset(out, 0, sizeof *out);
    out->name = d->name;
    out->help = d->help;
    out->source = d->source;
    out->latency_s = c0 > 0 ? c0 : 0;
    out->efficiency = 1.0 / c1 / d->nic_bytes_per_s;
    out->fit_max_rel_err = max_rel;
    return 0;
}

int sim_net_profile_file(const char *name, const char *path, double node_nic_bytes_per_s,
                         sim_net_profile_t *out, sim_err_t *err)
{
    json_t *root;
    if (sim_json_load(path, &root, err) != 0)
        return -1;
    int rc = -1;
    const char *kind;
    double lat, bw, maxe, nic = node_nic_bytes_per_s;
    json_t *net = json_object_get(root, "network");
    if (sim_json_str(root, "kind", path, "$", &kind, err) != 0)
        goto done;
    if (strcmp(kind, "network") != 0 || !json_is_object(net)) {
        sim_errf(err, "%s: $.kind: '%s' is not a network calibration (fit calib/net or calib tcp "
                      "measurements with calib fit)", path, kind);
        goto done;
    }
    if (sim_json_num(net, "latency_s", path, "$.network", &lat, err) != 0 ||
        sim_json_num(net, "bandwidth_bytes_per_s", path, "$.network", &bw, err) != 0 ||
        sim_json_num(net, "max_rel_err", path, "$.network", &maxe, err) != 0)
        goto done;
    if (json_object_get(root, "nic_bytes_per_s") &&
        sim_json_num(root, "nic_bytes_per_s", path, "$", &nic, err) != 0)
        goto done;
    if (!(lat >= 0 && lat <= NET_MAX_LATENCY_S)) {
        sim_errf(err, "%s: $.network.latency_s: %g is not in [0, %g] s", path, lat,
                 NET_MAX_LATENCY_S);
        goto done;
    }
    if (!(maxe >= 0) || !isfinite(maxe)) {
        sim_errf(err, "%s: $.network.max_rel_err: must be a finite number >= 0 (got %g)", path,
                 maxe);
        goto done;
    }
    if (plausible_bw(path, "$.network.bandwidth_bytes_per_s", bw, err) != 0 ||
        (json_object_get(root, "nic_bytes_per_s") &&
         plausible_bw(path, "$.nic_bytes_per_s", nic, err) != 0))
        goto done;
    if (!(nic > 0) || bw > nic * (1 + 1e-9)) {
        sim_errf(err, "%s: $.network.bandwidth_bytes_per_s: %g exceeds the NIC bandwidth %g (set "
                      "$.nic_bytes_per_s to the measured testbed's, or raise network.nic_gbps)",
                 path, bw, nic);
        goto done;
    }
    double eff = bw / nic < 1 ? bw / nic : 1;
    /* The efficiency measured against the file's testbed NICs applies to
     * the simulated node's: the rate it gives there must be plausible too. */
    if (!(eff * node_nic_bytes_per_s >= NET_MIN_BYTES_PER_S * (1 - 1e-12))) {
        sim_errf(err, "%s: $.nic_bytes_per_s: the efficiency %g (%g of %g bytes/s) gives the "
                      "simulated node's NICs (%g bytes/s) %g bytes/s, less than the plausible %g",
                 path, eff, bw, nic, node_nic_bytes_per_s, eff * node_nic_bytes_per_s,
                 NET_MIN_BYTES_PER_S);
        goto done;
    }
    memset(out, 0, sizeof *out);
    out->name = name;
    out->help = "a network calibration file";
    out->source = path;
    out->latency_s = lat;
    out->efficiency = eff;
    out->fit_max_rel_err = maxe;
    rc = 0;
done:
    json_decref(root);
    return rc;
}
