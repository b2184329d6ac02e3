/* traces/write.c: the Mooncake JSONL writer behind `trace gen`. Streams
 * record by record, so a generated or converted trace of any length is
 * written in constant memory. Agentic fields (request_id, session_id,
 * wait_for as the keys, delay) are written only where a request has them. */
#include "traces/trace.h"

#include <inttypes.h>

/* ns as ms with the ns digits, trailing zeros dropped: "1500", "1500.25". */
static void ms_text(char *ts, size_t cap, sim_time_t ns)
{
    int64_t ms = ns / SIM_NS_PER_MS, frac = ns % SIM_NS_PER_MS;
    int n = snprintf(ts, cap, "%" PRId64, ms);
    if (frac) {
        n += snprintf(ts + n, cap - (size_t)n, ".%06" PRId64, frac);
        while (ts[n - 1] == '0')
            ts[--n] = '\0';
    }
}

int trace_write_jsonl(const trace_open_args_t *args, FILE *out, sim_err_t *err)
{
    trace_t *t = trace_open(args, err);
    if (!t)
        return -1;
    trace_req_t r;
    int rc;
    while ((rc = trace_next(t, &r, err)) == TRACE_OK) {
        char ts[48];
        ms_text(ts, sizeof ts, r.arrival_ns);
        fprintf(out, "{\"timestamp\": %s, \"input_length\": %" PRId64 ", \"output_length\": %" PRId64
                     ", \"hash_ids\": [",
                ts, r.input_tok, r.output_tok);
        for (uint32_t i = 0; i < r.n_blocks; i++)
            fprintf(out, i ? ", %" PRIu64 : "%" PRIu64, r.blocks[i]);
        fputc(']', out);
        if (r.key)
            fprintf(out, ", \"request_id\": %" PRId64, r.key);
        if (r.session)
            fprintf(out, ", \"session_id\": %" PRId64, r.session);
        if (r.n_deps) {
            fputs(", \"wait_for\": [", out);
            for (uint32_t i = 0; i < r.n_deps; i++)
                fprintf(out, i ? ", %" PRId64 : "%" PRId64, r.deps[i]);
            fputc(']', out);
        }
        if (r.wait_ns) {
            ms_text(ts, sizeof ts, r.wait_ns);
            fprintf(out, ", \"delay\": %s", ts);
        }
        fputs("}\n", out);
    }
    trace_close(t);
    if (rc == TRACE_ERR)
        return -1;
    if (ferror(out))
        return sim_errf(err, "write failed");
    return 0;
}
