/* traces/lines.c: see trace_int.h. Decoded bytes pass through one fixed buffer
 * (zstd output, or plain file reads); a line lying wholly inside it is
 * returned in place, a line that spans refills is copied into a growing
 * line buffer, up to TRACE_LINE_MAX_BYTES. A stream that ends inside a
 * zstd frame is an error. */
#include "traces/trace_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ZSTD_createDStream_advanced and ZSTD_customMem: in the library since
 * zstd 1.0 (exported by libzstd.so), declared only under this macro. */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

/* Decoded-buffer size: zstd's recommended output size (one full block). */
#define LINES_BUF_BYTES ((size_t)1 << 17)

struct trace_lines {
    FILE *f;
    char *path;
    ZSTD_DStream *zd;    /* NULL for a plain file */
    unsigned char *in;   /* compressed input (zstd only) */
    size_t in_cap;
    ZSTD_inBuffer zin;
    int in_eof;          /* no more bytes from the file */
    size_t zret;         /* last ZSTD_decompressStream result: 0 = frame done */
    char *buf;           /* decoded bytes; one spare byte for a final NUL,
                          * TRACE_LINE_PAD past it (zero) */
    size_t buf_len;
    size_t buf_pos;
    char *line;          /* a line spanning refills */
    size_t line_cap;
    int64_t lineno;
    int done;
    const char *last;    /* the line last returned, while valid */
    size_t last_len;
    int again;           /* trace_lines_unread: return last once more */
};

/* zstd's buffers from the simulator's allocator: the window of a frame
 * (its whole content, up to 8 MiB and more) is a large block and so
 * comes in 2 MiB huge pages (sim/core/util.c), not one page fault per 4 KiB as
 * it fills. */
static void *zstd_alloc(void *opaque, size_t n)
{
    (void)opaque;
    return sim_xmalloc(n, "zstd stream");
}

static void zstd_free(void *opaque, void *p)
{
    (void)opaque;
    sim_free(p);
}

static int read_error(trace_lines_t *r, sim_err_t *err)
{
    return sim_errf(err, "%s:%lld: read error: %s", r->path, (long long)(r->lineno + 1),
                    strerror(errno));
}

/* Fill buf with the next decoded bytes. 1 = some bytes, 0 = end of file,
 * -1 = error (err filled). */
static int refill(trace_lines_t *r, sim_err_t *err)
{
    r->buf_len = r->buf_pos = 0;
    if (!r->zd) {
        if (r->in_eof)
            return 0;
        size_t n = fread(r->buf, 1, LINES_BUF_BYTES, r->f);
        if (n == 0) {
            if (ferror(r->f))
                return read_error(r, err);
            r->in_eof = 1;
            return 0;
        }
        r->buf_len = n;
        return 1;
    }
    for (;;) {
        if (r->zin.pos == r->zin.size && !r->in_eof) {
            size_t n = fread(r->in, 1, r->in_cap, r->f);
            if (n == 0) {
                if (ferror(r->f))
                    return read_error(r, err);
                r->in_eof = 1;
            }
            r->zin.src = r->in;
            r->zin.size = n;
            r->zin.pos = 0;
        }
        ZSTD_outBuffer out = {r->buf, LINES_BUF_BYTES, 0};
        size_t in_pos = r->zin.pos;
        size_t ret = ZSTD_decompressStream(r->zd, &out, &r->zin);
        if (ZSTD_isError(ret))
            return sim_errf(err, "%s:%lld: corrupt zstd data: %s", r->path,
                            (long long)(r->lineno + 1), ZSTD_getErrorName(ret));
        /* Only a call that made progress says where the frame stands; an
         * idle call past a complete frame asks for the next header. */
        if (out.pos > 0 || r->zin.pos != in_pos)
            r->zret = ret;
        if (out.pos > 0) {
            r->buf_len = out.pos;
            return 1;
        }
        if (r->in_eof && r->zin.pos == r->zin.size) {
            /* No input left and nothing more to flush: a clean end only at
             * a frame boundary. */
            if (r->zret != 0)
                return sim_errf(err, "%s:%lld: truncated zstd stream", r->path,
                                (long long)(r->lineno + 1));
            return 0;
        }
    }
}

trace_lines_t *trace_lines_open(const char *path, sim_err_t *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        sim_errf(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    trace_lines_t *r = sim_xcalloc(1, sizeof *r, "trace_lines");
    r->f = f;
    r->path = sim_xstrdup(path, "trace_lines.path");
    r->buf = sim_xmalloc(LINES_BUF_BYTES + 1 + TRACE_LINE_PAD, "trace_lines.buf");
    memset(r->buf + LINES_BUF_BYTES, 0, 1 + TRACE_LINE_PAD);
    /* The first bytes decide the format; keep them as the first chunk. */
    size_t n = fread(r->buf, 1, LINES_BUF_BYTES, f);
    if (n == 0 && ferror(f)) {
        /* e.g. a directory: fopen succeeds, the first read fails */
        sim_errf(err, "%s: cannot open: %s", path, strerror(errno));
        goto fail;
    }
    /* A zstd frame, or a skippable frame (magic 0x184D2A50 to 0x184D2A5F,
     * little-endian), which the decoder passes over to the frames after it. */
    static const unsigned char magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
    const unsigned char *b = (const unsigned char *)r->buf;
    int skippable = n >= 4 && (b[0] & 0xF0) == 0x50 && b[1] == 0x2A && b[2] == 0x4D && b[3] == 0x18;
    if (n >= 4 && (memcmp(b, magic, 4) == 0 || skippable)) {
        r->zd = ZSTD_createDStream_advanced(
            (ZSTD_customMem){.customAlloc = zstd_alloc, .customFree = zstd_free});
        SIM_ASSERT(r->zd != NULL); /* a fresh DStream needs no init */
        r->in_cap = SIM_MAX(ZSTD_DStreamInSize(), LINES_BUF_BYTES);
        r->in = sim_xmalloc(r->in_cap, "trace_lines.in");
        memcpy(r->in, r->buf, n);
        r->zin.src = r->in;
        r->zin.size = n;
        r->zin.pos = 0;
        r->zret = 1;
        r->in_eof = n < LINES_BUF_BYTES && feof(f);
    } else {
        r->buf_len = n;
        r->in_eof = n < LINES_BUF_BYTES && feof(f);
    }
    return r;
fail:
    trace_lines_close(r);
    return NULL;
}

/* Append n bytes to the spanning-line buffer, which holds *len bytes.
 * -1 (err filled, nothing appended) when the line would pass
 * TRACE_LINE_MAX_BYTES: the buffer, and what is decoded, stop there. */
static int line_append(trace_lines_t *r, size_t *len, const char *s, size_t n, sim_err_t *err)
{
    if (n > TRACE_LINE_MAX_BYTES - *len)
        return sim_errf(err, "%s:%lld: line longer than %zu bytes", r->path,
                        (long long)(r->lineno + 1), TRACE_LINE_MAX_BYTES);
    /* Zeroed as it grows: the bytes past a line's NUL are readable
     * (TRACE_LINE_PAD) and defined. */
    sim_grow_zeroed((void **)&r->line, &r->line_cap, *len + n + 1 + TRACE_LINE_PAD, 1,
                    "trace_lines.line");
    memcpy(r->line + *len, s, n);
    *len += n;
    return 0;
}

/* The line that trace_lines_next returns, kept for trace_lines_unread: a
 * NUL byte in it is an error (a text format holds none, and a C string
 * would end there); the first line loses a UTF-8 byte-order mark. */
static int give(trace_lines_t *r, char *s, size_t n, const char **line, size_t *len,
                sim_err_t *err)
{
    const char *nul = memchr(s, '\0', n);
    if (nul) {
        r->done = 1;
        return sim_errf(err, "%s:%lld: NUL byte at column %lld", r->path, (long long)r->lineno,
                        (long long)(nul - s) + 1);
    }
    if (r->lineno == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
        s += 3;
        n -= 3;
    }
    s[n] = '\0';
    if (n > 0 && s[n - 1] == '\r')
        s[--n] = '\0';
    *line = r->last = s;
    *len = r->last_len = n;
    return TRACE_OK;
}

int trace_lines_next(trace_lines_t *r, const char **line, size_t *len, sim_err_t *err)
{
    if (r->again) {
        r->again = 0;
        *line = r->last;
        *len = r->last_len;
        return TRACE_OK;
    }
    r->last = NULL;
    if (r->done)
        return TRACE_END;
    size_t n_part = 0;
    int partial = 0;
    for (;;) {
        if (r->buf_pos < r->buf_len) {
            char *s = r->buf + r->buf_pos;
            size_t avail = r->buf_len - r->buf_pos;
            char *nl = memchr(s, '\n', avail);
            if (nl) {
                size_t n = (size_t)(nl - s);
                r->buf_pos += n + 1;
                r->lineno++;
                if (!partial)
                    return give(r, s, n, line, len, err);
                if (line_append(r, &n_part, s, n, err) < 0)
                    break;
                return give(r, r->line, n_part, line, len, err);
            }
            if (line_append(r, &n_part, s, avail, err) < 0)
                break;
            partial = 1;
            r->buf_pos = r->buf_len;
        }
        int rc = refill(r, err);
        if (rc < 0) {
            r->done = 1;
            return TRACE_ERR;
        }
        if (rc == 0) {
            r->done = 1;
            if (!partial)
                return TRACE_END;
            /* A last line without a newline. */
            r->lineno++;
            return give(r, r->line, n_part, line, len, err);
        }
    }
    r->done = 1; /* a line past the bound */
    return TRACE_ERR;
}

static int is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return 0;
    return 1;
}

int trace_lines_next_nonblank(trace_lines_t *r, const char **line, size_t *len,
                              sim_err_t *err)
{
    for (;;) {
        int rc = trace_lines_next(r, line, len, err);
        if (rc != TRACE_OK || !is_blank(*line, *len))
            return rc;
    }
}

void trace_lines_unread(trace_lines_t *r)
{
    SIM_ASSERT(r->last != NULL && !r->again);
    r->again = 1;
}

int64_t trace_lines_lineno(const trace_lines_t *r) { return r->lineno; }
const char *trace_lines_path(const trace_lines_t *r) { return r->path; }
int trace_lines_is_zstd(const trace_lines_t *r) { return r->zd != NULL; }

void trace_lines_close(trace_lines_t *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    ZSTD_freeDStream(r->zd);
    sim_free(r->in);
    sim_free(r->buf);
    sim_free(r->line);
    sim_free(r->path);
    sim_free(r);
}
