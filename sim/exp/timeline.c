/* sim/exp/timeline.c: the Trace Event format timeline (docs/timeline.md).
 * Events are formatted by hand into one buffer and flushed to the file, or
 * through a zstd stream for a ".zst" name, as the run goes: memory stays
 * that of the buffer and the per-track bookkeeping. Times are integer ns
 * printed as microseconds with 3 decimals, so every boundary is exact and
 * a request's phases tile its life as requests.csv reports it. */
#include "sim/exp/timeline.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "sim/exp/out.h"
#include "sim/net/net.h"

/* The processes (Perfetto's groups of tracks). */
enum { PID_PREFILL = 1, PID_DECODE, PID_COLOC, PID_NET, PID_REQ, PID_CLUSTER, N_PID };
static const char *const pid_names[N_PID] = {
    NULL, "prefill instances", "decode instances", "colocated instances",
    "network", "requests", "cluster",
};
static const char *const track_names[SIM_OBS_N_TRACKS] = {"prefill", "decode", "colocated"};
static const char *const link_names[SIM_N_NET_LINKS] = {"pd", "fetch", "stage", "replication"};

/* A NIC's flows go on lanes (threads) so that none overlaps another:
 * tid node x LANES + lane; a NIC with more flows at once shares its last lane. */
#define LANES 1024
#define BUF_CAP (1 << 20)

typedef struct nic_lanes {
    sim_time_t *end_ns; /* per lane: the end of its last flow */
    int n;
} nic_lanes_t;

/* Seen flags of a growing set of small ints (a track's tids). */
typedef struct seen {
    uint8_t *b;
    size_t n;
} seen_t;

struct sim_timeline {
    sim_obs_t obs;
    sim_timeline_window_t w;
    double ttft_slo_s, tbt_slo_s;
    sim_out_file_t out;
    ZSTD_CCtx *zc; /* NULL: plain */
    char *buf;
    size_t len;
    char *zbuf;
    size_t zcap;
    int failed;      /* a write or compression failed */
    int n_events;
    int active;      /* request window: between its first arrival and last end */
    int64_t win_done; /* requests of the window ended */
    int pid_named[N_PID];
    seen_t named[N_PID];
    nic_lanes_t *nic;
    int n_nic;
    int64_t hit_tok[2]; /* DRAM, SSD hit tokens of prefilled requests so far */
};

/* ---- output ---- */

static void zwrite(sim_timeline_t *t, const void *p, size_t n, ZSTD_EndDirective end)
{
    ZSTD_inBuffer in = {p, n, 0};
    for (;;) {
        ZSTD_outBuffer o = {t->zbuf, t->zcap, 0};
        size_t rest = ZSTD_compressStream2(t->zc, &o, &in, end);
        if (ZSTD_isError(rest)) {
            t->failed = 1;
            return;
        }
        if (o.pos && fwrite(t->zbuf, 1, o.pos, t->out.f) != o.pos)
            t->failed = 1;
        if (end == ZSTD_e_end ? rest == 0 : in.pos == in.size)
            return;
    }
}

static void flush(sim_timeline_t *t, int last)
{
    if (t->zc)
        zwrite(t, t->buf, t->len, last ? ZSTD_e_end : ZSTD_e_continue);
    else if (t->len && fwrite(t->buf, 1, t->len, t->out.f) != t->len)
        t->failed = 1;
    t->len = 0;
}

/* Room for one event (every event is far shorter). */
static char *room(sim_timeline_t *t)
{
    if (t->len > BUF_CAP - 1024)
        flush(t, 0);
    return t->buf + t->len;
}

__attribute__((format(printf, 2, 3))) static void put(sim_timeline_t *t, const char *fmt, ...)
{
    char *p = room(t);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(p, BUF_CAP - t->len, fmt, ap);
    va_end(ap);
    SIM_ASSERT(n >= 0 && (size_t)n < BUF_CAP - t->len);
    t->len += (size_t)n;
}

/* Begin an event: the separator before all but the first. */
static void ev_begin(sim_timeline_t *t)
{
    if (t->n_events++)
        put(t, ",\n");
}

/* ns as microseconds with 3 decimals: exact. */
#define US_FMT "%" PRId64 ".%03" PRId64
#define US(ns) (int64_t)((ns) / 1000), (int64_t)((ns) % 1000)

static double finite_or_0(double v) { return isfinite(v) ? v : 0; }

/* ---- tracks ---- */

static void name_pid(sim_timeline_t *t, int pid)
{
    if (t->pid_named[pid])
        return;
    t->pid_named[pid] = 1;
    ev_begin(t);
    put(t, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"%s\"}}", pid,
        pid_names[pid]);
    ev_begin(t);
    put(t, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}",
        pid, pid);
}

/* Name thread tid of pid once: "<what>" (a < 0), "<what> <a>" or
 * "<what> <a> #<b>" (b >= 0). */
static void name_tid(sim_timeline_t *t, int pid, int64_t tid, const char *what, int64_t a,
                     int64_t b)
{
    name_pid(t, pid);
    seen_t *s = &t->named[pid];
    size_t i = (size_t)tid;
    if (i >= s->n) {
        size_t n = s->n ? s->n : 64;
        while (n <= i)
            n *= 2;
        s->b = sim_xrealloc(s->b, n, "timeline tracks");
        memset(s->b + s->n, 0, n - s->n);
        s->n = n;
    }
    if (s->b[i])
        return;
    s->b[i] = 1;
    ev_begin(t);
    if (a < 0)
        put(t,
            "{\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRId64 ",\"name\":\"thread_name\","
            "\"args\":{\"name\":\"%s\"}}",
            pid, tid, what);
    else if (b >= 0)
        put(t,
            "{\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRId64 ",\"name\":\"thread_name\","
            "\"args\":{\"name\":\"%s %" PRId64 " #%" PRId64 "\"}}",
            pid, tid, what, a, b);
    else
        put(t,
            "{\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRId64 ",\"name\":\"thread_name\","
            "\"args\":{\"name\":\"%s %" PRId64 "\"}}",
            pid, tid, what, a);
    ev_begin(t);
    put(t,
        "{\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRId64 ",\"name\":\"thread_sort_index\","
        "\"args\":{\"sort_index\":%" PRId64 "}}",
        pid, tid, tid);
}

/* A complete event's text up to its args, which the caller writes and
 * closes ("...}}"). */
static void x_event(sim_timeline_t *t, int pid, int64_t tid, const char *name, sim_time_t start,
                    sim_time_t end)
{
    ev_begin(t);
    put(t,
        "{\"ph\":\"X\",\"pid\":%d,\"tid\":%" PRId64 ",\"name\":\"%s\",\"ts\":" US_FMT
        ",\"dur\":" US_FMT ",\"args\":{",
        pid, tid, name, US(start), US(end - start));
}

/* ---- window ---- */

/* An instance's, a flow's or a counter's event over [start, end], told at
 * end: in the window? */
static int in_window(const sim_timeline_t *t, sim_time_t start, sim_time_t end)
{
    if (t->w.by_time)
        return end >= t->w.lo && start < t->w.hi;
    return t->active;
}

static int req_in_window(const sim_timeline_t *t, const sim_req_t *r)
{
    if (t->w.by_time)
        return r->arrival_ns >= t->w.lo && r->arrival_ns < t->w.hi;
    return r->id >= t->w.lo && r->id < t->w.hi;
}

/* ---- observer ---- */

static void ob_arrive(void *st, const sim_req_t *r, sim_time_t now)
{
    sim_timeline_t *t = st;
    (void)now;
    if (!t->w.by_time && r->id == t->w.lo)
        t->active = 1;
}

static void ob_admit(void *st, const sim_req_t *r, sim_time_t now, int accepted)
{
    sim_timeline_t *t = st;
    if (!req_in_window(t, r))
        return;
    name_tid(t, PID_CLUSTER, 0, "admission", -1, -1);
    ev_begin(t);
    put(t,
        "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":0,\"name\":\"%s\",\"ts\":" US_FMT
        ",\"args\":{\"id\":%" PRId64 "}}",
        PID_CLUSTER, accepted ? "admit" : "reject", US(now), r->id);
}

/* The SLO outcome of an ended request, as the metrics judge it. */
static const char *slo_outcome(const sim_timeline_t *t, const sim_req_t *r)
{
    switch (r->status) {
    case SIM_REQ_COMPLETED: {
        double ttft_s = (double)(r->first_token_ns - r->arrival_ns) / 1e9;
        return ttft_s <= t->ttft_slo_s && r->tbt_top10_s <= t->tbt_slo_s ? "met" : "missed";
    }
    case SIM_REQ_REJECTED_ARRIVAL: return "rejected_at_arrival";
    case SIM_REQ_REJECTED_PREFILL: return "rejected_after_prefill";
    case SIM_REQ_ACTIVE: break;
    }
    SIM_ASSERT(!"request reported before it ended");
    return "";
}

/* Phases of one request: contiguous spans from its arrival, each clamped
 * into [the previous end, limit]. */
typedef struct phases {
    sim_timeline_t *t;
    const sim_req_t *r;
    const char *slo;
    sim_time_t at, limit;
} phases_t;

static void phase(phases_t *p, const char *name, sim_time_t end)
{
    end = SIM_MIN(SIM_MAX(end, p->at), p->limit);
    if (end <= p->at)
        return;
    x_event(p->t, PID_REQ, p->r->id, name, p->at, end);
    put(p->t, "\"id\":%" PRId64 ",\"slo\":\"%s\"}}", p->r->id, p->slo);
    p->at = end;
}

static void request_phases(sim_timeline_t *t, const sim_req_t *r, sim_time_t schedule_ns)
{
    const char *slo = slo_outcome(t, r);
    name_tid(t, PID_REQ, r->id, "request", r->id, -1);
    phases_t p = {t, r, slo, r->arrival_ns, r->finish_ns};
    if (r->status == SIM_REQ_REJECTED_ARRIVAL) {
        phase(&p, "schedule", r->finish_ns);
    } else {
        int done = r->status == SIM_REQ_COMPLETED;
        if (done)
            p.limit = r->first_token_ns; /* the TTFT boundary */
        sim_time_t sched_end = r->arrival_ns + schedule_ns;
        phase(&p, "schedule", sched_end);
        if (r->fetch_src >= 0)
            phase(&p, "fetch", sched_end + r->fetch_ns);
        phase(&p, "queue", r->prefill_start_ns);
        phase(&p, "prefill", r->prefill_end_ns);
        if (done && r->output_tok > 1 && r->kv_ready_ns > 0) {
            phase(&p, "transfer", r->kv_ready_ns);
            phase(&p, "load", r->kv_ready_ns + r->decode_load_ns);
            phase(&p, "decode slot wait", r->decode_join_ns);
        }
        phase(&p, "wait", p.limit); /* none when the phases above reach it */
        p.limit = r->finish_ns;
        if (done)
            phase(&p, "decode", r->finish_ns);
        else
            phase(&p, "wait", r->finish_ns);
    }
    if (r->status == SIM_REQ_COMPLETED)
        return;
    ev_begin(t);
    put(t,
        "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%" PRId64 ",\"name\":\"%s\",\"ts\":" US_FMT
        ",\"args\":{\"id\":%" PRId64 ",\"slo\":\"%s\"}}",
        PID_REQ, r->id, slo, US(r->finish_ns), r->id, slo);
}

static void ob_request_done(void *st, const sim_req_t *r, sim_time_t schedule_ns)
{
    sim_timeline_t *t = st;
    if (r->status == SIM_REQ_COMPLETED || r->status == SIM_REQ_REJECTED_PREFILL) {
        t->hit_tok[0] += r->cached_dram_tok;
        t->hit_tok[1] += r->cached_ssd_tok;
    }
    if (r->status == SIM_REQ_REJECTED_PREFILL && req_in_window(t, r)) {
        name_tid(t, PID_CLUSTER, 0, "admission", -1, -1);
        ev_begin(t);
        put(t,
            "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":0,\"name\":\"reject after prefill\","
            "\"ts\":" US_FMT ",\"args\":{\"id\":%" PRId64 "}}",
            PID_CLUSTER, US(r->finish_ns), r->id);
    }
    if (!req_in_window(t, r))
        return;
    request_phases(t, r, schedule_ns);
    if (!t->w.by_time && ++t->win_done == t->w.hi - t->w.lo)
        t->active = 0; /* the window's last request ended */
}

static void ob_span(void *st, sim_obs_track_t track, int idx, const char *name, sim_time_t start,
                    sim_time_t end, int64_t n, int64_t req)
{
    sim_timeline_t *t = st;
    if (!in_window(t, start, end))
        return;
    int pid = PID_PREFILL + (int)track;
    name_tid(t, pid, idx, track_names[track], idx, -1);
    x_event(t, pid, idx, name, start, end);
    const char *key = track == SIM_OBS_PREFILL || req >= 0 ? "tokens"
                      : strcmp(name, "span") == 0          ? "iterations"
                                                           : "batch";
    if (req >= 0)
        put(t, "\"%s\":%" PRId64 ",\"id\":%" PRId64 "}}", key, n, req);
    else
        put(t, "\"%s\":%" PRId64 "}}", key, n);
}

static void ob_flow(void *st, int src, int dst, int link, double bytes, sim_time_t start,
                    sim_time_t end)
{
    sim_timeline_t *t = st;
    if (!in_window(t, start, end))
        return;
    if (src >= t->n_nic) {
        int n = t->n_nic ? t->n_nic : 16;
        while (n <= src)
            n *= 2;
        t->nic = sim_xrealloc(t->nic, (size_t)n * sizeof *t->nic, "timeline nics");
        memset(t->nic + t->n_nic, 0, (size_t)(n - t->n_nic) * sizeof *t->nic);
        t->n_nic = n;
    }
    /* Told in order of their ends, a flow fits a lane whose last flow
     * ended by its start: the lanes never hold overlapping flows. */
    nic_lanes_t *nl = &t->nic[src];
    int lane = 0;
    while (lane < nl->n && nl->end_ns[lane] > start)
        lane++;
    if (lane == nl->n && nl->n < LANES) {
        nl->end_ns = sim_xrealloc(nl->end_ns, (size_t)(nl->n + 1) * sizeof *nl->end_ns,
                                  "timeline lanes");
        nl->end_ns[nl->n++] = 0;
    }
    lane = SIM_MIN(lane, LANES - 1);
    nl->end_ns[lane] = end;
    int64_t tid = (int64_t)src * LANES + lane;
    name_tid(t, PID_NET, tid, "nic", src, lane);
    x_event(t, PID_NET, tid, link_names[link], start, end);
    put(t, "\"bytes\":%.17g,\"src\":%d,\"dst\":%d}}", bytes, src, dst);
}

static void counter(sim_timeline_t *t, int pid, const char *name, int64_t idx, const char *key,
                    sim_time_t now, double v)
{
    name_pid(t, pid);
    ev_begin(t);
    if (idx >= 0)
        put(t,
            "{\"ph\":\"C\",\"pid\":%d,\"name\":\"%s %" PRId64 "\",\"ts\":" US_FMT
            ",\"args\":{\"%s\":%.9g}}",
            pid, name, idx, US(now), key, finite_or_0(v));
    else
        put(t,
            "{\"ph\":\"C\",\"pid\":%d,\"name\":\"%s\",\"ts\":" US_FMT ",\"args\":{\"%s\":%.9g}}",
            pid, name, US(now), key, finite_or_0(v));
}

static void ob_counter(void *st, sim_obs_counter_t kind, int idx, sim_time_t now, double v)
{
    sim_timeline_t *t = st;
    if (!in_window(t, now, now))
        return;
    static const char *const tiers[2] = {"dram", "ssd"};
    switch (kind) {
    case SIM_OBS_NIC_UTIL: counter(t, PID_NET, "nic util", idx, "util", now, v); break;
    case SIM_OBS_LINK_GBPS: counter(t, PID_NET, "gbps", -1, link_names[idx], now, v); break;
    case SIM_OBS_POOL_BLOCKS:
        counter(t, PID_CLUSTER, "pool blocks", -1, tiers[idx], now, v);
        counter(t, PID_CLUSTER, "pool hit tokens", -1, tiers[idx], now, (double)t->hit_tok[idx]);
        break;
    case SIM_OBS_IN_FLIGHT: counter(t, PID_CLUSTER, "in flight", -1, "requests", now, v); break;
    case SIM_OBS_N_COUNTERS: SIM_ASSERT(!"no such counter");
    }
}

static const sim_obs_ops_t timeline_ops = {
    .arrive = ob_arrive,
    .admit = ob_admit,
    .request_done = ob_request_done,
    .span = ob_span,
    .flow = ob_flow,
    .counter = ob_counter,
};

/* ---- life cycle ---- */

/* A non-negative number of the window's text: an integer id or seconds. */
static int parse_num(const char *s, const char *end, int secs, int64_t *v)
{
    char tmp[64];
    size_t n = (size_t)(end - s);
    if (n == 0 || n >= sizeof tmp)
        return -1;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *e;
    if (secs) {
        double d = strtod(tmp, &e);
        return *e || sim_s_to_ns(d, v) != 0 ? -1 : 0;
    }
    if (tmp[0] < '0' || tmp[0] > '9')
        return -1;
    long long x = strtoll(tmp, &e, 10);
    if (*e || x < 0 || x == LLONG_MAX)
        return -1;
    *v = x;
    return 0;
}

int sim_timeline_window_parse(const char *s, sim_timeline_window_t *w, sim_err_t *err)
{
    if (strcmp(s, "all") == 0) {
        *w = (sim_timeline_window_t){.lo = 0, .hi = INT64_MAX};
        return 0;
    }
    int by_time = strncmp(s, "time:", 5) == 0;
    const char *p = by_time ? s + 5 : strncmp(s, "requests:", 9) == 0 ? s + 9 : NULL;
    const char *dash = p ? strchr(p, '-') : NULL;
    const char *end = dash ? dash + strlen(dash) : NULL;
    if (by_time && end && end > dash + 1 && end[-1] == 's')
        end--;
    int64_t lo, hi;
    if (!dash || parse_num(p, dash, by_time, &lo) != 0 ||
        parse_num(dash + 1, end, by_time, &hi) != 0 || hi <= lo)
        return sim_errf(err,
                        "--timeline-window: '%s': expected requests:A-B (request ids A to B-1), "
                        "time:X-Ys (arrivals from X to Y seconds) or all, with A < B, X < Y",
                        s);
    *w = (sim_timeline_window_t){.by_time = by_time, .lo = lo, .hi = hi};
    return 0;
}

sim_timeline_t *sim_timeline_open(const char *path, const sim_timeline_window_t *w,
                                  double ttft_slo_s, double tbt_slo_s, sim_err_t *err)
{
    sim_timeline_t *t = sim_xcalloc(1, sizeof *t, "timeline");
    if (sim_out_open_path(&t->out, path, err) != 0) {
        sim_free(t);
        return NULL;
    }
    t->obs = (sim_obs_t){.ops = &timeline_ops, .st = t};
    t->w = *w;
    t->ttft_slo_s = ttft_slo_s;
    t->tbt_slo_s = tbt_slo_s;
    t->buf = sim_xmalloc(BUF_CAP, "timeline buffer");
    size_t n = strlen(path);
    if (n > 4 && strcmp(path + n - 4, ".zst") == 0) {
        t->zc = ZSTD_createCCtx();
        SIM_ASSERT(t->zc);
        ZSTD_CCtx_setParameter(t->zc, ZSTD_c_compressionLevel, 3);
        t->zcap = ZSTD_CStreamOutSize();
        t->zbuf = sim_xmalloc(t->zcap, "timeline zstd buffer");
    }
    put(t, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"window\":");
    if (w->by_time)
        put(t, "\"time:" US_FMT "-" US_FMT "us\"", US(w->lo), US(w->hi));
    else if (w->hi == INT64_MAX)
        put(t, "\"all\"");
    else
        put(t, "\"requests:%" PRId64 "-%" PRId64 "\"", w->lo, w->hi);
    put(t, ",\"version\":\"%s\"},\n\"traceEvents\":[\n", sim_version);
    if (w->hi == INT64_MAX)
        t->w.by_time = 1; /* all: every time */
    return t;
}

const sim_obs_t *sim_timeline_obs(sim_timeline_t *t) { return &t->obs; }

static void timeline_free(sim_timeline_t *t)
{
    for (int i = 0; i < t->n_nic; i++)
        sim_free(t->nic[i].end_ns);
    sim_free(t->nic);
    for (int p = 0; p < N_PID; p++)
        sim_free(t->named[p].b);
    ZSTD_freeCCtx(t->zc);
    sim_free(t->zbuf);
    sim_free(t->buf);
    sim_free(t);
}

int sim_timeline_commit(sim_timeline_t *t, sim_err_t *err)
{
    put(t, "\n]}\n");
    flush(t, 1);
    int rc = t->failed || ferror(t->out.f) ? sim_out_fail(&t->out, err)
                                           : sim_out_commit(&t->out, err);
    timeline_free(t);
    return rc;
}

void sim_timeline_abort(sim_timeline_t *t)
{
    if (!t)
        return;
    sim_out_abort(&t->out);
    timeline_free(t);
}
