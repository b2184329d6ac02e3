/* fuzz/fuzz_trace.c: the trace readers on arbitrary bytes. The input is
 * read to the end as a file with format auto, mooncake and azure; then
 * the same input zstd-compressed and cut at an offset taken from its
 * last two bytes, read again as a .zst file, and the whole compressed
 * file, which must read exactly as the plain one did (same end, same
 * requests); a file that reads to its end must also survive `trace gen`
 * (trace_write_jsonl, Mooncake JSONL "exact to the ns"): read back as
 * mooncake, the same requests (see check_gen for a known finding). Every request a reader yields must satisfy trace_req_t's
 * contract (lengths in range, one block id per 512 tokens, arrivals from
 * 0 and never going back); anything else is an error with a message,
 * never a crash, a leak or UB. The Mooncake reader's typed scanner has
 * the cJSON reader as its oracle (trace_mooncake_oracle): on every input,
 * read as mooncake both ways, the same requests and the same end, an
 * error with the same message (check_oracle). Seeds (fuzz/corpus/trace): the first lines
 * of the Mooncake traces (kvcache-ai/Mooncake, Apache-2.0) and of the
 * Azure LLM inference traces (Azure/AzurePublicDataset, CC-BY 4.0: Patel
 * et al., "Splitwise", ISCA 2024). */
#include "fuzz/fuzz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "traces/trace_int.h"
#include "traces/trace.h"

static const char *const formats[] = {"auto", "mooncake", "azure"};

static void check_req(const trace_req_t *r, sim_time_t prev_ns, int64_t n, const char *fmt)
{
    char d[256];
    snprintf(d, sizeof d, "format %s, request %lld: arrival %lld ns (previous %lld), input %lld, "
             "output %lld, %u blocks, record %lld", fmt, (long long)n, (long long)r->arrival_ns,
             (long long)prev_ns, (long long)r->input_tok, (long long)r->output_tok, r->n_blocks,
             (long long)r->record);
    if (r->input_tok < 1 || r->input_tok > TRACE_MAX_INPUT_TOK ||
        r->output_tok < 1 || r->output_tok > TRACE_MAX_OUTPUT_TOK)
        fuzz_fail("request lengths out of range", d);
    if ((int64_t)r->n_blocks != (r->input_tok + TRACE_BLOCK_TOK - 1) / TRACE_BLOCK_TOK)
        fuzz_fail("n_blocks != ceil(input_tok / 512)", d);
    if (r->arrival_ns < 0 || r->arrival_ns < prev_ns)
        fuzz_fail("arrival before 0 or before the previous request", d);
    if (r->record < 1)
        fuzz_fail("record numbers start at 1", d);
    /* Touch every id: AddressSanitizer checks the array is that long. */
    volatile uint64_t sum = 0;
    for (uint32_t i = 0; i < r->n_blocks; i++)
        sum += r->blocks[i];
    (void)sum;
}

/* What a reader made of a file: how it ended and a hash of every request. */
typedef struct digest {
    int rc; /* -2: trace_open failed, else trace_next's last */
    int64_t n;
    uint64_t h;
    char msg[SIM_ERR_LEN]; /* the error, when rc is TRACE_ERR or -2 */
} digest_t;

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * UINT64_C(0x100000001b3); }

static void read_all(const char *path, digest_t out[3])
{
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        digest_t *d = &out[f];
        *d = (digest_t){.rc = -2, .h = UINT64_C(0xcbf29ce484222325)};
        trace_open_args_t a = {.path = path, .format = formats[f], .speed = 1};
        sim_err_t err;
        trace_t *t = trace_open(&a, &err);
        if (!t) {
            snprintf(d->msg, sizeof d->msg, "%s", err.msg);
            continue;
        }
        trace_req_t r;
        sim_time_t prev = 0;
        while ((d->rc = trace_next(t, &r, &err)) == TRACE_OK) {
            check_req(&r, prev, ++d->n, formats[f]);
            prev = r.arrival_ns;
            d->h = mix(mix(mix(mix(d->h, (uint64_t)r.arrival_ns), (uint64_t)r.input_tok),
                           (uint64_t)r.output_tok), (uint64_t)r.record);
            for (uint32_t i = 0; i < r.n_blocks; i++)
                d->h = mix(d->h, r.blocks[i]);
        }
        if (d->rc == TRACE_ERR && !err.msg[0])
            fuzz_fail("an error without a message", formats[f]);
        if (d->rc == TRACE_ERR)
            snprintf(d->msg, sizeof d->msg, "%s", err.msg);
        trace_close(t);
    }
}

/* The plain file path, read to its end in auto format, written as
 * Mooncake JSONL and read back as mooncake: the same requests, compared
 * one by one. Known finding, not yet fixed (traces/ is not this harness's
 * to change): the Mooncake reader parses "timestamp" as a double (cJSON),
 * so arrivals past 2^53 ns (104 days) come back off by an ulp or two;
 * tolerated there unless FUZZ_STRICT=1. */
static void check_gen(const char *path)
{
    const char *out = fuzz_path("gen.jsonl");
    FILE *f = fopen(out, "wb");
    if (!f)
        fuzz_fail("cannot write", out);
    trace_open_args_t a = {.path = path, .format = "auto", .speed = 1};
    sim_err_t err;
    int rc = trace_write_jsonl(&a, f, &err);
    if (fclose(f) != 0 || rc != 0)
        fuzz_fail("trace gen failed on a trace that reads to its end", err.msg);
    trace_open_args_t b = {.path = out, .format = "mooncake", .speed = 1};
    trace_t *t1 = trace_open(&a, &err), *t2 = trace_open(&b, &err);
    if (!t1 || !t2)
        fuzz_fail("cannot reopen for trace gen's check", err.msg);
    trace_req_t r1, r2;
    int64_t n = 0;
    for (;;) {
        int rc1 = trace_next(t1, &r1, &err), rc2 = trace_next(t2, &r2, &err);
        char m[200];
        snprintf(m, sizeof m, "request %lld: rc %d / %d, arrival %lld / %lld ns, input %lld / "
                 "%lld, output %lld / %lld", (long long)++n, rc1, rc2, (long long)r1.arrival_ns,
                 (long long)r2.arrival_ns, (long long)r1.input_tok, (long long)r2.input_tok,
                 (long long)r1.output_tok, (long long)r2.output_tok);
        if (rc1 != rc2)
            fuzz_fail("trace gen does not reproduce the trace", m);
        if (rc1 != TRACE_OK)
            break;
        if (r1.input_tok != r2.input_tok || r1.output_tok != r2.output_tok ||
            r1.n_blocks != r2.n_blocks ||
            memcmp(r1.blocks, r2.blocks, r1.n_blocks * sizeof *r1.blocks) != 0)
            fuzz_fail("trace gen does not reproduce the trace", m);
        if (r1.arrival_ns != r2.arrival_ns) {
            double ulp = ldexp((double)r1.arrival_ns, -51); /* two, with the product */
            if (fuzz_strict() || r1.arrival_ns < (INT64_C(1) << 53) ||
                fabs((double)(r1.arrival_ns - r2.arrival_ns)) > ulp)
                fuzz_fail("trace gen does not reproduce the trace", m);
            fuzz_known("trace gen: arrivals past 2^53 ns read back off by an ulp");
        }
    }
    trace_close(t1);
    trace_close(t2);
}

/* The typed scanner against its oracle, the cJSON reader, on path read
 * as auto and mooncake (plain[0..1], read the default way): the same requests (the
 * digests) and the same end, an error with the same message. */
static void check_oracle(const char *path, const digest_t plain[3])
{
    digest_t o[3];
    trace_mooncake_oracle(1);
    read_all(path, o);
    trace_mooncake_oracle(0);
    for (int f = 0; f < 2; f++) /* auto and mooncake */
        if (o[f].rc != plain[f].rc || o[f].n != plain[f].n || o[f].h != plain[f].h ||
            strcmp(o[f].msg, plain[f].msg) != 0) {
            char d[2 * SIM_ERR_LEN + 160];
            snprintf(d, sizeof d, "format %s: scanner rc %d, %lld requests, \"%s\"; cJSON rc %d, "
                     "%lld requests, \"%s\"", formats[f], plain[f].rc, (long long)plain[f].n,
                     plain[f].msg, o[f].rc, (long long)o[f].n, o[f].msg);
            fuzz_fail("the typed scanner reads differently from the cJSON reader", d);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    digest_t plain[3], zst[3];
    const char *path = fuzz_write("trace", data, size);
    read_all(path, plain);
    check_oracle(path, plain);
    if (plain[0].rc == TRACE_END && plain[0].n > 0)
        check_gen(path);

    size_t cap = ZSTD_compressBound(size);
    uint8_t *z = malloc(cap);
    if (!z)
        return 0;
    size_t zn = ZSTD_compress(z, cap, data, size, 1);
    if (ZSTD_isError(zn))
        fuzz_fail("ZSTD_compress", ZSTD_getErrorName(zn));
    size_t cut = zn;
    if (size >= 2)
        cut = ((size_t)data[size - 2] << 8 | data[size - 1]) % (zn + 1);
    if (cut != zn)
        read_all(fuzz_write("trace.jsonl.zst", z, cut), zst);
    /* The whole frame: a reader must make of it what it made of the
     * plain file (detection is by magic bytes, decoding is streamed). */
    read_all(fuzz_write("trace.jsonl.zst", z, zn), zst);
    free(z);
    /* An input that is itself zstd (the magic of a frame or of a
     * skippable frame, 0x184D2A50..5F) decodes once as a plain file and
     * once less when compressed again: nothing to compare. */
    static const uint8_t magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
    if (size >= 4 && (memcmp(data, magic, 4) == 0 ||
                      ((data[0] & 0xF0) == 0x50 && data[1] == 0x2A && data[2] == 0x4D &&
                       data[3] == 0x18)))
        return 0;
    for (int f = 0; f < 3; f++)
        if (plain[f].rc != zst[f].rc || plain[f].n != zst[f].n || plain[f].h != zst[f].h) {
            char d[160];
            snprintf(d, sizeof d, "format %s: plain rc %d, %lld requests; zstd rc %d, %lld "
                     "requests", formats[f], plain[f].rc, (long long)plain[f].n, zst[f].rc,
                     (long long)zst[f].n);
            fuzz_fail("the zstd file reads differently from the plain one", d);
        }
    return 0;
}
