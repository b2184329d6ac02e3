/* sim/core/metrics.c: see metrics.h. Percentiles come from sim_hist (within
 * 0.1%); means and counters are exact. */
#include "sim/core/metrics.h"

#include <math.h>
#include <string.h>

#include "sim/core/fmt.h"
#include "sim/core/hist.h"
#include "sim/core/util.h"

struct sim_metrics {
    FILE *csv;
    double ttft_slo_s, tbt_slo_s;
    sim_metrics_counts_t n;
    sim_time_t first_arrival_ns, last_arrival_ns, last_finish_ns;
    sim_hist_t ttft;  /* completed requests */
    sim_hist_t tbt;   /* every token interval of every request */
    sim_hist_t top10; /* per completed request: mean of its longest 10% */
    int64_t input_tok, output_tok, cached_tok;
    int64_t prefilled_input_tok, prefilled_cached_tok, prefilled_dram_tok, prefilled_ssd_tok;
    sim_time_t prefill_busy_ns, prefill_wasted_ns;
    int64_t decode_iters, decode_batch_sum, preemptions;
    int64_t stalls;           /* prefill stalls seen by completed requests */
    sim_time_t stall_ns;      /* their time */
    int64_t stalled_requests; /* completed requests that saw at least one */
    /* Completed requests that joined a pd decode batch, and their waits
     * for a slot (join - KV ready - the load left after the stream). */
    int64_t slot_waiters;
    sim_time_t slot_wait_ns, slot_wait_max_ns;
    sim_time_t decode_busy_ns;
    int64_t h2d_bytes, ssd_bytes;
    sim_time_t h2d_ns, ssd_ns;
    sim_time_t queue_ns_sum;
    FILE *ts;
    sim_fmt_line_t line; /* the CSV row being built */
    int ts_np, ts_nd;
};

const char sim_metrics_csv_header[] =
    "id,arrival_s,input_tokens,output_tokens,status,prefill_instance,decode_instance,"
    "cached_tokens,ttft_s,tbt_mean_s,tbt_p90_s,tbt_max_s,tbt_top10_s,finish_s,"
    "queue_s,prefill_s,transfer_s,cached_dram_tokens,cached_ssd_tokens,load_s,"
    "fetched_tokens,fetch_s,kv_ready_s,decode_load_s,decode_start_s,preemptions,"
    "prefill_stalls,prefill_stall_s\n";

const char sim_metrics_ts_header[] =
    "time_s,pd_gbps,fetch_gbps,stage_gbps,repl_gbps,nic_util_mean,nic_util_max,flows,in_flight,"
    "prefill_wait_s_max,replicas_mean,blocks_multi,hot_replications,prefill_load_mean,"
    "decode_load_mean";

sim_metrics_t *sim_metrics_new(FILE *csv, double ttft_slo_s, double tbt_slo_s)
{
    sim_metrics_t *m = sim_xcalloc(1, sizeof *m, "metrics");
    m->csv = csv;
    m->ttft_slo_s = ttft_slo_s;
    m->tbt_slo_s = tbt_slo_s;
    m->first_arrival_ns = -1;
    sim_hist_init(&m->ttft);
    sim_hist_init(&m->tbt);
    sim_hist_init(&m->top10);
    if (csv)
        fputs(sim_metrics_csv_header, csv);
    return m;
}

void sim_metrics_free(sim_metrics_t *m)
{
    if (!m)
        return;
    sim_fmt_line_free(&m->line);
    sim_hist_free(&m->ttft);
    sim_hist_free(&m->tbt);
    sim_hist_free(&m->top10);
    sim_free(m);
}

void sim_metrics_arrival(sim_metrics_t *m, const sim_req_t *r)
{
    if (m->first_arrival_ns < 0)
        m->first_arrival_ns = r->arrival_ns;
    m->last_arrival_ns = r->arrival_ns;
}

static double s_of(sim_time_t ns) { return (double)ns / 1e9; }

static const char *status_name(sim_req_status_t s)
{
    switch (s) {
    case SIM_REQ_COMPLETED:
        return "completed";
    case SIM_REQ_REJECTED_ARRIVAL:
        return "rejected_at_arrival";
    case SIM_REQ_REJECTED_PREFILL:
        return "rejected_after_prefill";
    case SIM_REQ_ACTIVE:
        break;
    }
    return "active";
}

/* Room for a whole requests.csv row: 28 columns, each with its comma
 * within SIM_FMT_NUM bytes (a status name is shorter, an integer at most
 * 21 bytes, a seconds field what the fmt writers allow for), so one check
 * per row covers every field (the writers need SIM_FMT_NUM at a field's
 * start, which the columns after it leave). */
#define CSV_ROW_MAX (28 * SIM_FMT_NUM)

/* (Inline at each of its dozen uses: a call would cost a sixth of it.) */
static inline __attribute__((always_inline)) char *put_ns6(char *p, sim_time_t ns)
{
    p = sim_fmt_ns6_at(p, ns);
    *p = ',';
    return p + 1;
}

static char *put_int(char *p, int64_t v)
{
    p = sim_fmt_i64_at(p, v);
    *p = ',';
    return p + 1;
}

static char *put_lit(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}

/* r's row of requests.csv (columns: sim_metrics_csv_header), built and
 * written whole; numbers as printf("%.6f") / "%lld" would write them. */
static void csv_row(sim_metrics_t *m, const sim_req_t *r, sim_time_t ttft, sim_time_t prefill,
                    int prefilled)
{
    sim_fmt_line_t *l = &m->line;
    char *p = sim_fmt_room(l, CSV_ROW_MAX), *start = p;
    p = put_int(p, r->id);
    p = put_ns6(p, r->arrival_ns);
    p = put_int(p, r->input_tok);
    p = put_int(p, r->output_tok);
    switch (r->status) {
    case SIM_REQ_COMPLETED:
        p = put_lit(p, "completed,", 10);
        break;
    default: {
        const char *name = status_name(r->status);
        p = put_lit(p, name, strlen(name));
        *p++ = ',';
    }
    }
    p = put_int(p, r->prefill_inst);
    p = put_int(p, r->decode_inst);
    p = put_int(p, r->cached_tok);
    if (r->status == SIM_REQ_COMPLETED) {
        p = put_ns6(p, ttft);
        const double v[] = {r->tbt_mean_s, r->tbt_p90_s, r->tbt_max_s, r->tbt_top10_s};
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
            p = sim_fmt_sec6_at(p, v[i]);
            *p++ = ',';
        }
    } else {
        p = put_lit(p, ",,,,,", 5);
    }
    p = put_ns6(p, r->finish_ns);
    if (prefilled) {
        p = put_ns6(p, r->prefill_start_ns - r->arrival_ns);
        p = put_ns6(p, prefill);
        p = put_ns6(p, r->transfer_ns);
        p = put_int(p, r->cached_dram_tok);
        p = put_int(p, r->cached_ssd_tok);
        p = put_ns6(p, r->load_ns);
        p = put_int(p, r->fetched_tok);
        p = put_ns6(p, r->fetch_src >= 0 ? r->fetch_ns : 0);
    } else {
        p = put_lit(p, ",,,,,,,,", 8);
    }
    if (r->status == SIM_REQ_COMPLETED && r->output_tok > 1 && r->kv_ready_ns > 0) {
        p = put_ns6(p, r->kv_ready_ns);
        p = put_ns6(p, r->decode_load_ns);
        p = put_ns6(p, r->decode_join_ns);
    } else {
        p = put_lit(p, ",,,", 3);
    }
    p = put_int(p, r->preemptions);
    p = put_int(p, r->prefill_stalls);
    p = sim_fmt_ns6_at(p, r->prefill_stall_ns);
    *p++ = '\n';
    l->len += (size_t)(p - start);
    (void)sim_fmt_put(l, m->csv); /* a failed write shows on the stream, at commit */
}

void sim_metrics_request_done(sim_metrics_t *m, const sim_req_t *r)
{
    m->n.total++;
    m->input_tok += r->input_tok;
    m->preemptions += r->preemptions;
    if (r->finish_ns > m->last_finish_ns)
        m->last_finish_ns = r->finish_ns;
    int prefilled = r->status == SIM_REQ_COMPLETED || r->status == SIM_REQ_REJECTED_PREFILL;
    sim_time_t ttft = r->first_token_ns - r->arrival_ns;
    sim_time_t prefill = r->prefill_end_ns - r->prefill_start_ns;
    if (prefilled) {
        m->prefilled_input_tok += r->input_tok;
        m->prefilled_cached_tok += r->cached_tok;
        m->prefilled_dram_tok += r->cached_dram_tok;
        m->prefilled_ssd_tok += r->cached_ssd_tok;
    }
    switch (r->status) {
    case SIM_REQ_COMPLETED: {
        m->n.completed++;
        m->n.lifetime_s_sum += s_of(r->finish_ns - r->arrival_ns);
        m->output_tok += r->output_tok;
        m->cached_tok += r->cached_tok;
        m->queue_ns_sum += r->prefill_start_ns - r->arrival_ns;
        m->stalls += r->prefill_stalls;
        m->stall_ns += r->prefill_stall_ns;
        m->stalled_requests += r->prefill_stalls > 0;
        if (r->output_tok > 1 && r->kv_ready_ns > 0) {
            sim_time_t w = r->decode_join_ns - r->kv_ready_ns - r->decode_load_ns;
            m->slot_waiters++;
            m->slot_wait_ns += w;
            m->slot_wait_max_ns = SIM_MAX(m->slot_wait_max_ns, w);
        }
        sim_hist_add(&m->ttft, ttft, 1);
        sim_hist_add(&m->top10, (int64_t)llround(r->tbt_top10_s * 1e9), 1);
        if (s_of(ttft) <= m->ttft_slo_s && r->tbt_top10_s <= m->tbt_slo_s)
            m->n.met_slo++;
        break;
    }
    case SIM_REQ_REJECTED_ARRIVAL:
        m->n.rejected_arrival++;
        break;
    case SIM_REQ_REJECTED_PREFILL:
        m->n.rejected_prefill++;
        m->prefill_wasted_ns += prefill;
        break;
    case SIM_REQ_ACTIVE:
        SIM_ASSERT(!"request reported before it ended");
    }
    if (m->csv)
        csv_row(m, r, ttft, prefill, prefilled);
}

void sim_metrics_tbt(sim_metrics_t *m, sim_time_t interval_ns, uint64_t count)
{
    sim_hist_add(&m->tbt, interval_ns, count);
}

void sim_metrics_prefill_busy(sim_metrics_t *m, sim_time_t ns) { m->prefill_busy_ns += ns; }

void sim_metrics_decode_span(sim_metrics_t *m, size_t n_iter, int64_t batch, sim_time_t busy_ns)
{
    m->decode_iters += (int64_t)n_iter;
    m->decode_batch_sum += batch * (int64_t)n_iter;
    m->decode_busy_ns += busy_ns;
}

void sim_metrics_tbt_run(sim_metrics_t *m, sim_time_t v, uint64_t n, sim_time_t sum, sim_time_t mx,
                         uint64_t count)
{
    sim_hist_add_run(&m->tbt, v, n, sum, mx, count);
}

void sim_metrics_decode_iter(sim_metrics_t *m, sim_time_t ns, int64_t batch)
{
    m->decode_iters++;
    m->decode_batch_sum += batch;
    m->decode_busy_ns += ns;
}

void sim_metrics_tier_load(sim_metrics_t *m, int64_t dram_bytes, int64_t ssd_bytes, sim_time_t ns)
{
    /* DRAM and SSD reads of one load overlap; each is charged its own
     * bandwidth's share of the time. */
    int64_t total = dram_bytes + ssd_bytes;
    if (total <= 0)
        return;
    m->h2d_bytes += dram_bytes;
    m->ssd_bytes += ssd_bytes;
    m->h2d_ns += (sim_time_t)((double)ns * (double)dram_bytes / (double)total);
    m->ssd_ns += (sim_time_t)((double)ns * (double)ssd_bytes / (double)total);
}

void sim_metrics_h2d(sim_metrics_t *m, int64_t bytes, sim_time_t ns)
{
    m->h2d_bytes += bytes;
    m->h2d_ns += ns;
}

void sim_metrics_set_timeseries(sim_metrics_t *m, FILE *ts, int n_prefill, int n_decode)
{
    m->ts = ts;
    m->ts_np = n_prefill;
    m->ts_nd = n_decode;
    if (!ts)
        return;
    fputs(sim_metrics_ts_header, ts);
    for (int i = 0; i < n_prefill; i++)
        fprintf(ts, ",p%d_load", i);
    for (int j = 0; j < n_decode; j++)
        fprintf(ts, ",d%d_load", j);
    fputc('\n', ts);
}

static double mean_of(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return n ? s / n : 0;
}

void sim_metrics_ts_row(sim_metrics_t *m, const sim_metrics_ts_t *row)
{
    if (!m->ts)
        return;
    sim_fmt_line_t *l = &m->line;
    sim_fmt_fix(l, row->time_s, 3);
    for (int k = 0; k < 4; k++) {
        sim_fmt_char(l, ',');
        sim_fmt_fix(l, row->link_gbps[k], 4);
    }
    const struct {
        double v;
        int dec; /* -1: an integer */
        int64_t i;
    } f[] = {
        {row->nic_util_mean, 5, 0},     {row->nic_util_max, 5, 0},      {0, -1, row->flows},
        {0, -1, row->in_flight},        {row->prefill_wait_s_max, 4, 0}, {row->replicas_mean, 5, 0},
        {0, -1, row->blocks_multi},     {0, -1, row->hot_replications},
        {mean_of(row->prefill_load, m->ts_np), 4, 0}, {mean_of(row->decode_load, m->ts_nd), 4, 0},
    };
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
        sim_fmt_char(l, ',');
        if (f[k].dec < 0)
            sim_fmt_int(l, f[k].i);
        else
            sim_fmt_fix(l, f[k].v, f[k].dec);
    }
    for (int i = 0; i < m->ts_np; i++) {
        sim_fmt_char(l, ',');
        sim_fmt_fix(l, row->prefill_load[i], 4);
    }
    for (int j = 0; j < m->ts_nd; j++) {
        sim_fmt_char(l, ',');
        sim_fmt_fix(l, row->decode_load[j], 4);
    }
    sim_fmt_char(l, '\n');
    (void)sim_fmt_put(l, m->ts);
}

sim_metrics_counts_t sim_metrics_counts(const sim_metrics_t *m) { return m->n; }

/* Round to 9 significant digits so summaries read cleanly and stay stable. */
static json_t *num(double v)
{
    if (v == 0 || !isfinite(v))
        return json_real(0);
    double mag = pow(10, 8 - floor(log10(fabs(v))));
    return json_real(round(v * mag) / mag);
}

json_t *sim_metrics_num(double v) { return num(v); }

static json_t *pct(const sim_hist_t *h, const char *const *keys, const double *qs, size_t n)
{
    json_t *o = json_object();
    json_object_set_new(o, "mean", num(sim_hist_mean(h) / 1e9));
    for (size_t i = 0; i < n; i++)
        json_object_set_new(o, keys[i], num((double)sim_hist_percentile(h, qs[i]) / 1e9));
    return o;
}

/* The span the rates are over, seconds: first to last arrival, or, when
 * every request arrived at one instant, to the last completion. */
static double summary_span_s(const sim_metrics_t *m)
{
    sim_time_t span = m->last_arrival_ns - m->first_arrival_ns;
    if (span <= 0) /* one instant: use the time to the last completion */
        span = m->last_finish_ns - (m->first_arrival_ns > 0 ? m->first_arrival_ns : 0);
    return span > 0 ? s_of(span) : 0;
}

/* $.requests: what became of the requests. New reference. */
static json_t *requests_json(const sim_metrics_t *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "total", json_integer(m->n.total));
    json_object_set_new(o, "completed", json_integer(m->n.completed));
    json_object_set_new(o, "rejected_at_arrival", json_integer(m->n.rejected_arrival));
    json_object_set_new(o, "rejected_after_prefill", json_integer(m->n.rejected_prefill));
    return o;
}

/* $.slo: the targets and how many requests met both. New reference. */
static json_t *slo_json(const sim_metrics_t *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "ttft_s", num(m->ttft_slo_s));
    json_object_set_new(o, "tbt_s", num(m->tbt_slo_s));
    json_object_set_new(o, "met", json_integer(m->n.met_slo));
    json_object_set_new(o, "attainment",
                        num(m->n.completed ? (double)m->n.met_slo / (double)m->n.completed : 0));
    json_object_set_new(o, "effective_request_capacity",
                        num(m->n.total ? (double)m->n.met_slo / (double)m->n.total : 0));
    return o;
}

/* $.trace: the span (span_s, from summary_span_s) and tokens. New
 * reference. */
static json_t *trace_totals_json(const sim_metrics_t *m, double span_s)
{
    json_t *o = json_object();
    json_object_set_new(o, "span_s", num(span_s));
    json_object_set_new(o, "input_tokens", json_integer(m->input_tok));
    json_object_set_new(o, "output_tokens_completed", json_integer(m->output_tok));
    json_object_set_new(o, "cached_tokens_completed", json_integer(m->cached_tok));
    return o;
}

/* $.prefill: busy and wasted time, mean queueing. New reference. */
static json_t *prefill_json(const sim_metrics_t *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "busy_s", num(s_of(m->prefill_busy_ns)));
    json_object_set_new(o, "wasted_s", num(s_of(m->prefill_wasted_ns)));
    json_object_set_new(o, "mean_queue_s",
                        num(m->n.completed ? s_of(m->queue_ns_sum) / (double)m->n.completed : 0));
    return o;
}

/* $.decode: iterations, busy time, preemptions, prefill stalls, batch
 * size. New reference. */
static json_t *decode_json(const sim_metrics_t *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "iterations", json_integer(m->decode_iters));
    json_object_set_new(o, "busy_s", num(s_of(m->decode_busy_ns)));
    json_object_set_new(o, "preemptions", json_integer(m->preemptions));
    /* Prefill stalls of decoding (completed requests): steps in which a
     * request's batch waited for prefill work. */
    double nc = (double)(m->n.completed ? m->n.completed : 1);
    json_object_set_new(o, "stalls_per_request", num((double)m->stalls / nc));
    json_object_set_new(o, "stall_s_per_request", num(s_of(m->stall_ns) / nc));
    json_object_set_new(o, "stall_s_mean",
                        num(m->stalls ? s_of(m->stall_ns) / (double)m->stalls : 0));
    json_object_set_new(o, "stalled_share", num((double)m->stalled_requests / nc));
    /* The wait of a request whose KV is in VRAM for a slot in its batch
     * (VRAM for its whole KV, the batch cap): in its TTFT. */
    json_object_set_new(o, "slot_wait_s_mean",
                        num(m->slot_waiters ? s_of(m->slot_wait_ns) / (double)m->slot_waiters
                                            : 0));
    json_object_set_new(o, "slot_wait_s_max", num(s_of(m->slot_wait_max_ns)));
    json_object_set_new(o, "mean_batch",
                        num(m->decode_iters ? (double)m->decode_batch_sum / (double)m->decode_iters
                                            : 0));
    return o;
}

/* {bytes, busy_s} of one host-side copy path. New reference. */
static json_t *copy_json(int64_t bytes, sim_time_t busy_ns)
{
    json_t *o = json_object();
    json_object_set_new(o, "bytes", json_integer(bytes));
    json_object_set_new(o, "busy_s", num(s_of(busy_ns)));
    return o;
}

/* Add the token hit rates over prefilled requests, and the cached tokens,
 * to the pool's $.cache object. */
static void cache_add_hits(const sim_metrics_t *m, json_t *cache)
{
    double in = (double)m->prefilled_input_tok;
    json_object_set_new(cache, "hit_rate_tokens",
                        num(in > 0 ? (double)m->prefilled_cached_tok / in : 0));
    json_object_set_new(cache, "hit_rate_dram", num(in > 0 ? (double)m->prefilled_dram_tok / in : 0));
    json_object_set_new(cache, "hit_rate_ssd", num(in > 0 ? (double)m->prefilled_ssd_tok / in : 0));
    json_object_set_new(cache, "cached_tokens", json_integer(m->prefilled_cached_tok));
}

json_t *sim_metrics_summary(const sim_metrics_t *m, json_t *cache, json_t *transfer, json_t *sim)
{
    json_t *root = json_object(), *o;
    double span_s = summary_span_s(m);
    json_object_set_new(root, "requests", requests_json(m));

    static const char *const k3[] = {"p50", "p90", "p99"};
    static const double q3[] = {0.5, 0.9, 0.99};
    json_object_set_new(root, "ttft_s", pct(&m->ttft, k3, q3, 3));
    json_object_set_new(root, "tbt_s", pct(&m->tbt, k3 + 1, q3 + 1, 2));
    json_object_set_new(root, "tbt_top10_s", pct(&m->top10, k3, q3, 3));

    json_object_set_new(root, "throughput_rps",
                        num(span_s > 0 ? (double)m->n.completed / span_s : 0));
    json_object_set_new(root, "goodput_rps", num(span_s > 0 ? (double)m->n.met_slo / span_s : 0));
    json_object_set_new(root, "slo", slo_json(m));
    json_object_set_new(root, "trace", trace_totals_json(m, span_s));
    json_object_set_new(root, "prefill", prefill_json(m));
    json_object_set_new(root, "decode", decode_json(m));

    o = transfer ? transfer : json_object();
    json_object_set_new(o, "h2d", copy_json(m->h2d_bytes, m->h2d_ns));
    json_object_set_new(o, "ssd", copy_json(m->ssd_bytes, m->ssd_ns));
    json_object_set_new(root, "transfer", o);

    if (cache) {
        cache_add_hits(m, cache);
        json_object_set_new(root, "cache", cache);
    }
    json_object_set_new(root, "sim", sim);
    return root;
}

/* Hoare-style quickselect: afterwards a[k] holds the value of rank k and
 * everything before it is <= a[k], everything after >=. Middle pivot;
 * deterministic. */
static void select_k(int64_t *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t pivot = a[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                int64_t t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

void sim_metrics_tbt_stats(int64_t *a, size_t n, double *mean_s, double *p90_s, double *max_s,
                           double *top10_s)
{
    *mean_s = *p90_s = *max_s = *top10_s = 0;
    if (n == 0)
        return;
    int64_t sum = 0, mx = 0;
    for (size_t i = 0; i < n; i++) {
        sum += a[i];
        mx = a[i] > mx ? a[i] : mx;
    }
    *mean_s = (double)sum / (double)n / 1e9;
    *max_s = (double)mx / 1e9;
    size_t top = (n + 9) / 10; /* ceil(10%) */
    select_k(a, n, n - top);
    int64_t top_sum = 0;
    for (size_t i = n - top; i < n; i++)
        top_sum += a[i];
    *top10_s = (double)top_sum / (double)top / 1e9;
    /* ceil(0.9 n), 1-based: n - top = floor(0.9 n), so rank r90 - 1 is
     * either n - top (placed by the select above) or n - top - 1, the
     * largest of the part below it. */
    size_t r90 = (9 * n + 9) / 10;
    int64_t v90 = a[r90 - 1];
    if (r90 - 1 < n - top) {
        v90 = a[0];
        for (size_t i = 1; i < n - top; i++)
            v90 = a[i] > v90 ? a[i] : v90;
    }
    *p90_s = (double)v90 / 1e9;
}
