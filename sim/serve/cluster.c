/* sim/serve/cluster.c: the cluster's life cycle: the network and the serving
 * system's instances; arrivals read one ahead from the trace and handed to
 * the system; admission at arrival; the end of every request; the time
 * series; and the generic part of the view policies use. It calls a
 * system only through its ops (sim/serve/system.h): the systems live in
 * sim/serve/pd.c (its files in sim/serve/pd_int.h, the view of its
 * instances in sim/serve/pd_view.c) and sim/serve/colocated.c. */
#include "sim/serve/cluster_int.h"

#include <math.h>
#include <string.h>

/* ---- request end ---- */

/* Requests and their block ids come from the run's slab: at 512P + 512D a
 * replay holds thousands at once, megabytes that would otherwise each be
 * first touched in the C library's heap 4 KiB at a time. */
static void req_release(sim_cluster_t *c, sim_req_t *r)
{
    sim_slab_release(&c->slab, r->blocks, (size_t)r->cap_blocks * sizeof *r->blocks);
    sim_slab_release(&c->slab, r, sizeof *r);
}

/* Take r off the live list and keep it (with its blocks' room) for the
 * next request read; under AddressSanitizer, free it. */
static void req_free(sim_cluster_t *c, sim_req_t *r)
{
    if (r->live_prev)
        r->live_prev->live_next = r->live_next;
    else
        c->live = r->live_next;
    if (r->live_next)
        r->live_next->live_prev = r->live_prev;
    sim_free(r->tbt_saved);
    if (SIM_UNDER_ASAN) {
        req_release(c, r);
        return;
    }
    r->next = c->spare;
    c->spare = r;
}

/* A zeroed request with room for n blocks: a spare one when there is. */
static sim_req_t *req_new(sim_cluster_t *c, uint32_t n)
{
    sim_req_t *r = c->spare;
    uint64_t *blocks = NULL;
    uint32_t cap = 0;
    if (r) {
        c->spare = r->next;
        blocks = r->blocks;
        cap = r->cap_blocks;
        memset(r, 0, sizeof *r);
    } else {
        r = sim_slab_alloc(&c->slab, sizeof *r, "request");
    }
    if (n > cap || !blocks) { /* a fresh request has no room (cap 0) */
        sim_slab_release(&c->slab, blocks, (size_t)cap * sizeof *blocks);
        cap = n;
        blocks = sim_slab_alloc(&c->slab, (size_t)cap * sizeof *blocks, "request blocks");
    }
    r->blocks = blocks;
    r->cap_blocks = cap;
    return r;
}

static void trace_request_done(sim_cluster_t *c, const sim_req_t *r);

void sim_cluster_finish(sim_cluster_t *c, sim_req_t *r, sim_req_status_t st)
{
    SIM_ASSERT(r->status == SIM_REQ_ACTIVE);
    r->status = st;
    r->finish_ns = sim_evq_now(c->evq);
    if (c->a.system->release)
        c->a.system->release(c->system_st, c, r);
    sim_metrics_request_done(c->m, r);
    if (c->obs)
        sim_obs_request_done(c->obs, r, c->a.system->disaggregated ? c->a.pd.schedule_ns : 0);
    c->n_done++;
    if (r->trace_key) /* requests of the trace may wait on this one */
        trace_request_done(c, r);
    req_free(c, r);
}

/* ---- time series ---- */

/* The observer's counters of a row: in flight, and the pool's blocks per
 * tier over the nodes. */
static void ts_obs(sim_cluster_t *c, sim_time_t now, int64_t in_flight)
{
    sim_obs_counter(c->obs, SIM_OBS_IN_FLIGHT, 0, now, (double)in_flight);
    if (!c->pool)
        return;
    for (int t = 0; t < SIM_N_TIERS; t++) {
        int64_t sum = 0;
        for (int n = 0; n < c->n_nodes; n++)
            sum += sim_kvpool_size(c->pool, n, t);
        sim_obs_counter(c->obs, SIM_OBS_POOL_BLOCKS, t, now, (double)sum);
    }
}

static void ts_row(sim_cluster_t *c)
{
    sim_time_t now = sim_evq_now(c->evq);
    double dt = (double)(now - c->ts_prev_ns) / 1e9;
    if (dt <= 0)
        return;
    sim_net_settle(c->net);
    sim_metrics_ts_t row = {.time_s = (double)now / 1e9};
    for (int l = 0; l < SIM_N_NET_LINKS; l++) {
        sim_net_link_stats_t st = sim_net_link_stats(c->net, l);
        row.link_gbps[l] = (st.bytes - c->ts_prev[l].bytes) * 8 / dt / 1e9;
        sim_obs_counter(c->obs, SIM_OBS_LINK_GBPS, l, now, row.link_gbps[l]);
        c->ts_prev[l] = st;
    }
    double sum = 0, mx = 0;
    for (int n = 0; n < c->n_nodes; n++) {
        double u = sim_net_take_sent(c->net, n) / dt / sim_net_nic_bytes_per_s(c->net, n);
        sim_obs_counter(c->obs, SIM_OBS_NIC_UTIL, n, now, u);
        sum += u;
        mx = u > mx ? u : mx;
    }
    row.nic_util_mean = sum / c->n_nodes;
    row.nic_util_max = mx;
    row.flows = (int64_t)sim_net_active(c->net);
    row.in_flight = c->n_arrived - c->n_done;
    if (c->obs)
        ts_obs(c, now, row.in_flight);
    if (c->pool) {
        int64_t blocks, replicas, multi;
        sim_kvpool_replica_totals(c->pool, &blocks, &replicas, &multi);
        row.replicas_mean = blocks ? (double)replicas / (double)blocks : 0;
        row.blocks_multi = multi;
    }
    double *pl = c->ts_loads, *dl = pl + c->ts_n_prefill;
    if (c->a.system->ts_loads)
        c->a.system->ts_loads(c->system_st, c, &row, pl, dl);
    row.prefill_load = pl;
    row.decode_load = dl;
    sim_metrics_ts_row(c->m, &row);
    c->ts_prev_ns = now;
}

/* Nothing can change before the next arrival (the trace's record read
 * ahead): no request in flight, no flow on the network, and no event
 * pending but that arrival. */
static int ts_idle(const sim_cluster_t *c)
{
    return c->live && c->n_arrived == c->n_done && sim_net_active(c->net) == 0 &&
           sim_evq_pending(c->evq) == 1;
}

/* The time of the next row, on the grid k x metrics.interval_s. While the
 * cluster is idle every row until the next arrival is the same (nothing
 * moves, nothing is in flight, every load is 0, the pool is unchanged), so
 * of an idle span's rows only the first and the last are written; the
 * rows between them are skipped, with no event. The first row after a
 * burst still shows the burst's end, and a plot drawn through the rows is
 * exact across the span. ts_quiet: the row due next closes an interval in
 * which nothing happened. */
static sim_time_t ts_next_ns(sim_cluster_t *c)
{
    sim_time_t now = sim_evq_now(c->evq), iv = c->a.ts_interval_ns, next = now + iv;
    int quiet_row = c->ts_quiet; /* the row just written */
    c->ts_quiet = 0;
    if (!ts_idle(c))
        return next;
    sim_time_t at = SIM_MAX(c->live->arrival_ns, now);
    if (quiet_row && at > next + iv)
        next = (at - 1) / iv * iv; /* the last interval that ends before the arrival */
    c->ts_quiet = next < at;
    return next;
}

static void ts_tick(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    (void)obj;
    (void)arg;
    ts_row(c);
    c->ts_rows++;
    /* Keep sampling while anything is left to happen (until the trace
     * ends, its read-ahead record is live); the next tick and the final
     * partial row must stay within the bound, else the run stops here. */
    if (!c->live)
        return;
    if (c->ts_rows + 2 > c->ts_max_rows) {
        c->trace_failed = 1;
        sim_errf(&c->trace_err,
                 "$.metrics.interval_s: %g s would write more than %lld rows of timeseries.csv "
                 "(the most for rows of %d columns; %.0f s simulated so far, requests still in "
                 "flight): use at least the run's simulated span / %lld, or 0 for no time series",
                 (double)c->a.ts_interval_ns / 1e9, (long long)c->ts_max_rows,
                 SIM_TS_FIXED_COLS + c->ts_n_prefill + c->ts_n_decode,
                 (double)sim_evq_now(c->evq) / 1e9, (long long)c->ts_max_rows);
        return;
    }
    sim_evq_at(c->evq, ts_next_ns(c), ts_tick, NULL, 0);
}

/* ---- arrivals ---- */

static void arrival(void *ctx, void *obj, int64_t arg);

/* A request of the trace arriving at its arrival_ns (now, if that is
 * past); released: 1 for a request released by its dependencies, which
 * reads nothing more on arrival (the trace's own order goes on from the
 * requests that wait on none). */
static void schedule_arrival(sim_cluster_t *c, const trace_req_t *tr, int64_t released)
{
    sim_req_t *r = req_new(c, tr->n_blocks);
    r->id = c->n_arrived + 1; /* provisional; fixed at arrival */
    r->arrival_ns = tr->arrival_ns;
    r->input_tok = tr->input_tok;
    r->output_tok = tr->output_tok;
    r->n_blocks = tr->n_blocks;
    r->trace_key = tr->key;
    if (tr->n_blocks)
        memcpy(r->blocks, tr->blocks, (size_t)tr->n_blocks * sizeof *r->blocks);
    r->prefill_inst = r->decode_inst = -1;
    r->fetch_src = -1;
    r->live_next = c->live;
    if (c->live)
        c->live->live_prev = r;
    c->live = r;
    sim_time_t at = tr->arrival_ns < sim_evq_now(c->evq) ? sim_evq_now(c->evq) : tr->arrival_ns;
    sim_evq_at(c->evq, at, arrival, r, released);
}

/* Schedule the requests the trace has released (agentic traces only). */
static void pull_released(sim_cluster_t *c)
{
    trace_req_t tr;
    while (trace_released(c->trace, &tr) == TRACE_OK)
        schedule_arrival(c, &tr, 1);
}

/* Read the next trace record and schedule its arrival. */
static void pull_next(sim_cluster_t *c)
{
    trace_req_t tr;
    int rc = trace_next(c->trace, &tr, &c->trace_err);
    if (rc == TRACE_ERR) {
        c->trace_failed = 1;
        return;
    }
    if (rc == TRACE_OK)
        schedule_arrival(c, &tr, 0);
    pull_released(c); /* held on the way whose dependencies are all done */
}

static void trace_request_done(sim_cluster_t *c, const sim_req_t *r)
{
    trace_done(c->trace, r->trace_key, r->finish_ns);
    pull_released(c);
}

static void arrival(void *ctx, void *obj, int64_t arg)
{
    sim_cluster_t *c = ctx;
    sim_req_t *r = obj;
    r->id = c->n_arrived++;
    sim_metrics_arrival(c->m, r);
    sim_obs_arrive(c->obs, r, sim_evq_now(c->evq));
    if (!arg)
        pull_next(c);
    c->a.system->arrive(c->system_st, c, r);
}

int sim_cluster_admit(sim_cluster_t *c, sim_req_t *r)
{
    /* A request whose KV could never fit an instance cannot be served by
     * any policy: refused at once. */
    if (r->input_tok + r->output_tok > c->kv_cap_tok ||
        !c->a.admit->at_arrival(c->admit_st, c, r)) {
        sim_obs_admit(c->obs, r, sim_evq_now(c->evq), 0);
        sim_cluster_finish(c, r, SIM_REQ_REJECTED_ARRIVAL);
        return 0;
    }
    sim_obs_admit(c->obs, r, sim_evq_now(c->evq), 1);
    return 1;
}

/* ---- life cycle ---- */

sim_cluster_t *sim_cluster_new(const sim_cluster_args_t *a, sim_metrics_t *m, sim_err_t *err)
{
    int64_t kv_bytes = model_llm_kv_bytes_per_tok(a->llm);
    double vram = a->hw->n_gpus * a->hw->vram_bytes_per_gpu * (1.0 - a->vram_reserve_frac);
    double kv_room = vram - a->llm->weight_bytes;
    if (kv_room < (double)kv_bytes) {
        /* Both keys: the model's weights, and the reserve that shrank what
         * is left of a node's VRAM for them. */
        sim_errf(err,
                 "$.model, $.cluster.vram_reserve_frac: model %s (%.0f GB of weights) does not fit "
                 "the VRAM a node keeps after the reserve, leaving no room for KVCache (%s: %d x "
                 "%.0f GB x (1 - %g) = %.0f GB); lower the reserve or choose a smaller model",
                 a->llm->name, a->llm->weight_bytes / 1e9, a->hw->name, a->hw->n_gpus,
                 a->hw->vram_bytes_per_gpu / 1e9, a->vram_reserve_frac, vram / 1e9);
        return NULL;
    }
    SIM_ASSERT(a->system && a->place && a->admit && a->net.profile);
    SIM_ASSERT(a->pd.prefill_group >= 1 && a->pd.prefill_chunk_tok >= 1);
    sim_cluster_t *c = sim_xcalloc(1, sizeof *c, "cluster");
    c->a = *a;
    c->evq = sim_evq_new(c);
    c->m = m;
    c->kv_bytes_per_tok = kv_bytes;
    c->kv_cap_tok = (int64_t)(kv_room / (double)kv_bytes);
    if (a->system->ts_cols)
        a->system->ts_cols(a, a->system_params, &c->ts_n_prefill, &c->ts_n_decode);
    int n_loads = c->ts_n_prefill + c->ts_n_decode;
    c->ts_max_rows = SIM_MIN(SIM_TS_MAX_ROWS, SIM_TS_MAX_CELLS / (SIM_TS_FIXED_COLS + n_loads));
    c->ts_loads = sim_xcalloc((size_t)n_loads + 1, sizeof *c->ts_loads, "loads");
    c->dur = sim_xcalloc(1, sizeof *c->dur, "decode durations");
    c->dur->stale = -1;
    c->n_nodes = a->system->n_nodes(a, a->system_params);
    SIM_ASSERT(c->n_nodes >= 1);
    double *nic = sim_xmalloc((size_t)c->n_nodes * sizeof *nic, "nic");
    for (int n = 0; n < c->n_nodes; n++)
        nic[n] = a->net.nic_bytes_per_s;
    c->net = sim_net_new(c->evq, c->n_nodes, nic, a->net.profile);
    sim_free(nic);
    c->system_st = a->system->init(c, a->system_params);
    c->place_st = a->place->init ? a->place->init(c, a->place_params) : NULL;
    c->admit_st = a->admit->init ? a->admit->init(c, a->admit_params) : NULL;
    return c;
}

void sim_cluster_free(sim_cluster_t *c)
{
    if (!c)
        return;
    /* Requests of an abandoned run are still live: the system drops them. */
    while (c->live) {
        if (c->a.system->release)
            c->a.system->release(c->system_st, c, c->live);
        req_free(c, c->live);
    }
    while (c->spare) {
        sim_req_t *r = c->spare;
        c->spare = r->next;
        req_release(c, r);
    }
    if (c->a.place->free)
        c->a.place->free(c->place_st);
    if (c->a.admit->free)
        c->a.admit->free(c->admit_st);
    c->a.system->free(c, c->system_st);
    sim_slab_free(&c->slab);
    sim_free(c->scratch);
    sim_net_free(c->net);
    sim_free(c->ts_loads);
    sim_free(c->dur);
    sim_evq_free(c->evq);
    sim_free(c);
}

void sim_cluster_set_obs(sim_cluster_t *c, const sim_obs_t *obs)
{
    c->obs = obs;
    sim_net_set_obs(c->net, obs);
}

void sim_cluster_attach_trace(sim_cluster_t *c, trace_t *t)
{
    c->trace = t;
    trace_hold_deps(t); /* completions are reported: trace_request_done */
    pull_next(c);
    if (c->a.ts_interval_ns > 0)
        sim_evq_at(c->evq, ts_next_ns(c), ts_tick, NULL, 0);
}

int sim_cluster_run(sim_cluster_t *c, sim_cluster_progress_fn progress, void *ud, sim_err_t *err)
{
    uint64_t n = 0;
    while (!c->trace_failed && sim_evq_step(c->evq))
        if (progress && (++n & 0xffff) == 0)
            progress(ud, c);
    if (c->trace_failed) {
        if (err)
            *err = c->trace_err;
        return -1;
    }
    /* Conservation: everything that arrived has ended. */
    SIM_ASSERT(c->n_done == c->n_arrived && c->live == NULL);
    if (c->a.ts_interval_ns > 0)
        ts_row(c); /* the last, partial interval */
    sim_net_settle(c->net);
    return 0;
}

void sim_cluster_ts_cols(const sim_cluster_t *c, int *n_prefill, int *n_decode)
{
    *n_prefill = c->ts_n_prefill;
    *n_decode = c->ts_n_decode;
}

uint64_t sim_cluster_events(const sim_cluster_t *c) { return sim_evq_executed(c->evq); }
int64_t sim_cluster_n_arrived(const sim_cluster_t *c) { return c->n_arrived; }
int64_t sim_cluster_n_in_flight(const sim_cluster_t *c) { return c->n_arrived - c->n_done; }
int64_t sim_cluster_decode_kv_cap_tok(const sim_cluster_t *c) { return c->kv_cap_tok; }
const sim_kvpool_t *sim_cluster_kvpool(const sim_cluster_t *c) { return c->pool; }
sim_net_t *sim_cluster_net(sim_cluster_t *c) { return c->net; }

/* ---- view ---- */

int sim_cluster_n_prefill(const sim_cluster_t *c) { return c->a.pd.n_prefill; }
int sim_cluster_n_decode(const sim_cluster_t *c) { return c->a.pd.n_decode; }
sim_time_t sim_cluster_now(const sim_cluster_t *c) { return sim_evq_now(c->evq); }
const model_cost_t *sim_cluster_cost(const sim_cluster_t *c) { return c->a.cost; }
const sim_cluster_args_t *sim_cluster_args(const sim_cluster_t *c) { return &c->a; }

/* A request that does not fit waits for VRAM, and that wait is part of
 * its TBT: hence the VRAM term of the load. */
double sim_cluster_decode_load(const sim_cluster_t *c, int64_t n, int64_t ctx, int64_t rsv)
{
    if (n <= 0)
        return 0;
    double t = (double)model_cost_decode_ns(c->a.cost, n, ctx) / (double)c->a.slo_tbt_ns;
    double v = (double)rsv / (double)c->kv_cap_tok;
    return t > v ? t : v;
}

/* ---- overload view ---- */

static int dur_bucket(sim_time_t ns)
{
    if (ns < 1)
        return 0;
    int b = (int)(2 * log2((double)ns));
    return b < SIM_DUR_BUCKETS ? b : SIM_DUR_BUCKETS - 1;
}

void sim_cluster_note_decode(sim_cluster_t *c, sim_time_t dur_ns)
{
    c->decode_ns_sum += dur_ns;
    c->decode_n++;
    sim_dur_hist_t *h = c->dur;
    int b = dur_bucket(dur_ns);
    h->cnt[b]++;
    h->sum_ns[b] += dur_ns;
    h->stale = b > h->stale ? b : h->stale;
}

/* h's suffix totals up to date: those above stale are (no completion
 * since their last update fell there), so each below is the one above
 * plus its own bucket: the same integers as totals kept at every
 * completion. */
static const sim_dur_hist_t *dur_fresh(sim_dur_hist_t *h)
{
    for (int b = h->stale; b >= 0; b--) {
        h->cnt_ge[b] = h->cnt_ge[b + 1] + h->cnt[b];
        h->sum_ge_ns[b] = h->sum_ge_ns[b + 1] + h->sum_ns[b];
    }
    h->stale = -1;
    return h;
}

sim_time_t sim_cluster_mean_decode_ns(const sim_cluster_t *c, sim_time_t fallback_ns)
{
    return c->decode_n ? c->decode_ns_sum / c->decode_n : fallback_ns;
}

sim_time_t sim_cluster_decode_residual_ns(const sim_cluster_t *c, sim_time_t age_ns,
                                          sim_time_t t_d_ns, int learned)
{
    /* Mean residual life over the observed durations longer than age: the
     * buckets above age's, and age's own when its mean exceeds age. */
    if (c->decode_n > 0 && learned) {
        const sim_dur_hist_t *h = dur_fresh(c->dur);
        int b = dur_bucket(age_ns);
        int64_t cnt = h->cnt_ge[b + 1], sum = h->sum_ge_ns[b + 1];
        int64_t own_cnt = h->cnt_ge[b] - cnt, own_sum = h->sum_ge_ns[b] - sum;
        if (own_cnt > 0 && (double)own_sum / (double)own_cnt > (double)age_ns) {
            cnt += own_cnt;
            sum += own_sum;
        }
        if (cnt > 0)
            return (sim_time_t)llround((double)(sum - cnt * age_ns) / (double)cnt);
    }
    /* A uniform t_d (set, or nothing observed longer): what is left of
     * it, or one more t_d for a request that has already outlived it. */
    return age_ns < t_d_ns ? t_d_ns - age_ns : t_d_ns;
}

/* ---- the view for forecasts ---- */

const sim_req_t *sim_cluster_live_next(const sim_cluster_t *c, const sim_req_t *prev)
{
    return prev ? prev->live_next : c->live;
}
