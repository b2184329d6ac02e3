/* fuzz/fuzz_calib.c: calibration files on arbitrary bytes. The input is
 * read as a cost calibration (model_cost_new("fitted", ...) for a800x8
 * and llama2-70b) and, when it loads, every pass over a grid of plausible
 * inputs (1 to 131072 tokens, prefixes, batches 1 to 256, contexts up to
 * the batch's full length) must evaluate: the wrappers assert their value
 * is finite, >= 0 and fits int64 ns, UBSan traps bad casts, and the
 * monotonicity the load-time domain check relies on (cost.h) holds. Then the
 * same bytes as a network calibration (sim_net_profile_file): a loaded
 * profile must hold a latency in [0, 10] s and an efficiency in (0, 1],
 * and a network of two nodes under it must predict transfers from 0 bytes
 * to the KV of MODEL_COST_MAX_TOK tokens as non-negative, non-decreasing
 * times. */
#include "fuzz/fuzz.h"

#include <math.h>
#include <stdio.h>

#include "models/cost.h"
#include "models/hw.h"
#include "models/llm.h"
#include "sim/core/evq.h"
#include "sim/net/net.h"

static void eval_grid(const model_cost_t *c)
{
    static const int64_t toks[] = {1, 2, 3, 17, 512, 1000, 4096, 8191, 32768, 100000, 131072};
    static const int64_t batches[] = {1, 2, 7, 64, 255, 256};
    size_t nt = sizeof toks / sizeof toks[0];
    volatile sim_time_t sink = 0; /* xor: a sum of valid values could overflow */
    sim_time_t prev_full = 0;
    for (size_t i = 0; i < nt; i++) {
        int64_t n = toks[i];
        sink ^= model_cost_prefill_ns(c, n, n - 1) ^ model_cost_prefill_ns(c, n, n);
        sim_time_t full = model_cost_prefill_ns(c, n, 0), half = model_cost_prefill_ns(c, n, n / 2);
        if (half > full || full < prev_full)
            fuzz_fail("a prefill gets slower with a cached prefix or faster with tokens", NULL);
        prev_full = full;
        for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
            int64_t bs = batches[b];
            sim_time_t d0 = model_cost_decode_ns(c, bs, 0), d1 = model_cost_decode_ns(c, bs, n),
                       d2 = model_cost_decode_ns(c, bs, bs * n);
            if (d1 < d0 || d2 < d1)
                fuzz_fail("a decode step gets faster with more context", NULL);
            sink ^= d0 ^ d1 ^ d2;
        }
        sink ^= full ^ half;
    }
    sink ^= model_cost_prefill_fixed_ns(c);
    (void)sink;
}

static void check_transfers(const sim_net_profile_t *p, double nic)
{
    const double kv_max = (double)MODEL_COST_MAX_TOK * 327680; /* a 70B model's KV */
    const double sizes[] = {0, 1, 4096, 1e6, 1e9, 1e12, kv_max};
    double nics[2] = {nic, nic};
    sim_evq_t *q = sim_evq_new(NULL);
    sim_net_t *net = sim_net_new(q, 2, nics, p);
    sim_time_t prev = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        sim_time_t t = sim_net_estimate_ns(net, 0, 1, sizes[i]);
        if (t < prev) {
            char d[160];
            snprintf(d, sizeof d, "%g bytes: %lld ns (the size before: %lld ns)", sizes[i],
                     (long long)t, (long long)prev);
            fuzz_fail("a transfer estimate is negative or shrinks with size", d);
        }
        prev = t;
    }
    sim_net_free(net);
    sim_evq_free(q);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write("calib.json", data, size);
    model_cost_args_t a = {.hw = model_hw_find("a800x8"), .llm = model_llm_find("llama2-70b"),
                           .calibration = path, .data_dir = "."};
    sim_err_t err;
    model_cost_t *c = model_cost_new("fitted", &a, &err);
    if (c) {
        eval_grid(c);
        model_cost_free(c);
    } else if (!err.msg[0]) {
        fuzz_fail("a refused calibration without a message", NULL);
    }

    sim_net_profile_t p;
    if (sim_net_profile_file("fuzz", path, model_hw_nic_bytes_per_s(a.hw), &p, &err) == 0) {
        if (!(p.latency_s >= 0 && p.latency_s <= 10) || !(p.efficiency > 0 && p.efficiency <= 1) ||
            !isfinite(p.fit_max_rel_err) || p.fit_max_rel_err < 0) {
            char d[160];
            snprintf(d, sizeof d, "latency %g s, efficiency %g, max_rel_err %g", p.latency_s,
                     p.efficiency, p.fit_max_rel_err);
            fuzz_fail("a network calibration loaded with implausible numbers", d);
        }
        check_transfers(&p, model_hw_nic_bytes_per_s(a.hw));
    }
    return 0;
}
