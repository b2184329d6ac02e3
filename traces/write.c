/* traces/write.c: the Mooncake JSONL writer behind `trace gen`. Streams
 * record by record, so a generated or converted trace of any length is
 * written in constant memory. */
#include "traces/trace.h"

#include <inttypes.h>

int trace_write_jsonl(const trace_open_args_t *args, FILE *out, sim_err_t *err)
{
    trace_t *t = trace_open(args, err);
    if (!t)
        return -1;
    trace_req_t r;
    int rc;
    while ((rc = trace_next(t, &r, err)) == TRACE_OK) {
        /* ms with the ns digits, trailing zeros dropped: "1500", "1500.25". */
        char ts[48];
        int64_t ms = r.arrival_ns / SIM_NS_PER_MS, frac = r.arrival_ns % SIM_NS_PER_MS;
        int n = snprintf(ts, sizeof ts, "%" PRId64, ms);
        if (frac) {
            n += snprintf(ts + n, sizeof ts - (size_t)n, ".%06" PRId64, frac);
            while (ts[n - 1] == '0')
                ts[--n] = '\0';
        }
        fprintf(out, "{\"timestamp\": %s, \"input_length\": %" PRId64 ", \"output_length\": %" PRId64
                     ", \"hash_ids\": [",
                ts, r.input_tok, r.output_tok);
        for (uint32_t i = 0; i < r.n_blocks; i++)
            fprintf(out, i ? ", %" PRIu64 : "%" PRIu64, r.blocks[i]);
        fputs("]}\n", out);
    }
    trace_close(t);
    if (rc == TRACE_ERR)
        return -1;
    if (ferror(out))
        return sim_errf(err, "write failed");
    return 0;
}
