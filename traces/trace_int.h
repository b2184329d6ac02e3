/* traces/trace_int.h: internal to traces/. A streaming line reader over a plain
 * or zstd file (detected by the magic bytes, not the name), and the ops
 * tables of the built-in sources that the registry in trace.c lists.
 * Invariant: memory is two fixed-size buffers plus one line buffer that
 * grows to the longest line, at most TRACE_LINE_MAX_BYTES; the decoded
 * file is never held whole, and a longer line is an error found after
 * decoding at most that many bytes of it (a small compressed file that
 * expands to gigabytes costs no more). */
#ifndef TRACE_INT_H
#define TRACE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/core/hmap.h"
#include "sim/core/util.h"
#include "traces/trace.h"

typedef struct trace_lines trace_lines_t;

/* The longest line accepted, in bytes without its newline: a Mooncake
 * record of the largest input (TRACE_MAX_INPUT_TOK, 32768 hash ids of 16
 * digits) takes about 0.56 MB. With cJSON's nodes for a line's values,
 * reading a line holds a few tens of MB at most. */
#define TRACE_LINE_MAX_BYTES ((size_t)1 << 20)

/* Generated arrival times stop well short of INT64_MAX ns. */
#define TRACE_GEN_MAX_NS 9.0e18

/* Open path for reading lines. Returns NULL with err = "PATH: cannot open:
 * reason" when it cannot be opened or its first bytes cannot be read.
 * Caller frees with trace_lines_close. */
trace_lines_t *trace_lines_open(const char *path, sim_err_t *err);

/* Bytes a line as trace_lines_next returns it may be read past its NUL
 * (their values unspecified): a scanner may load TRACE_LINE_PAD bytes at
 * once from any byte of the line. */
#define TRACE_LINE_PAD 8

/* The next line without its "\n" or "\r\n", NUL-terminated (and
 * TRACE_LINE_PAD - 1 readable bytes after it); *line stays
 * valid until the next call. A final line without a newline is returned;
 * the first line loses a UTF-8 byte-order mark (EF BB BF). TRACE_OK,
 * TRACE_END, or TRACE_ERR with err = "PATH:LINE: message" (a read error,
 * corrupt or truncated zstd data, a NUL byte in the line, a line longer
 * than TRACE_LINE_MAX_BYTES). O(line length). */
int trace_lines_next(trace_lines_t *r, const char **line, size_t *len, sim_err_t *err);

/* As trace_lines_next, skipping lines that hold only blanks (they still
 * count for line numbers). */
int trace_lines_next_nonblank(trace_lines_t *r, const char **line, size_t *len,
                              sim_err_t *err);

/* The line last returned is returned again, with its number, by the
 * next call (format detection hands the reader on this way). */
void trace_lines_unread(trace_lines_t *r);

/* 1-based number of the line last returned (0 before the first). */
int64_t trace_lines_lineno(const trace_lines_t *r);
/* The path as given to trace_lines_open (owned by the reader). */
const char *trace_lines_path(const trace_lines_t *r);
/* 1 when the file is zstd-compressed. */
int trace_lines_is_zstd(const trace_lines_t *r);

/* Frees everything and closes the file; accepts NULL. */
void trace_lines_close(trace_lines_t *r);

/* ---- a record's JSON (json.c) ----
 * trace_json_parse parses text[0..len) (NUL-terminated at len) with
 * cJSON, its values allocated from the arena (a zeroed struct is an empty
 * one, which the first parse sizes); *end as cJSON's return_parse_end.
 * trace_json_release ends the use of what it returned (NULL included)
 * before the next parse into the same arena. The arena grows to its
 * largest record; trace_json_arena_free frees it. */
struct cJSON;
typedef struct trace_json_arena {
    char *buf;
    size_t cap, used;
    size_t spilled; /* bytes of the current record past the arena (malloc'd) */
} trace_json_arena_t;

struct cJSON *trace_json_parse(trace_json_arena_t *a, const char *text, size_t len,
                               const char **end);
void trace_json_release(trace_json_arena_t *a, struct cJSON *obj);
/* 1 when a parse of text that failed at end (trace_json_parse's *end)
 * failed for opening an array or object deeper than cJSON's
 * CJSON_NESTING_LIMIT levels. O(end - text). */
int trace_json_too_deep(const char *text, const char *end);
void trace_json_arena_free(trace_json_arena_t *a);

/* ---- dense ids (idmap.c) ----
 * Hash ids a block id cannot be as written (integers at or past 2^53,
 * strings) are mapped to TRACE_MAPPED_ID_BASE + a dense counter, in order
 * of first appearance, so they never meet an id below 2^53 taken as is.
 * A zeroed struct is an empty map. 0, or -1 when 2^32 - 1 ids are mapped
 * already. Expected O(1) (O(len) for a string). */
#define TRACE_MAPPED_ID_BASE (UINT64_C(1) << 53)
struct trace_idmap_str;
typedef struct trace_idmap {
    sim_hmap_t ints;              /* integer id -> dense index */
    sim_hmap_t strs;              /* hash of a string -> its first entry + 1 */
    struct trace_idmap_str *str;  /* the distinct strings */
    size_t n_str, str_cap;
    char *pool;                   /* their bytes */
    size_t pool_len, pool_cap;
    uint32_t n;                   /* ids mapped */
} trace_idmap_t;

int trace_idmap_int(trace_idmap_t *m, uint64_t v, uint64_t *id);
int trace_idmap_str(trace_idmap_t *m, const char *s, size_t len, uint64_t *id);
void trace_idmap_free(trace_idmap_t *m);

/* Readers of the "mooncake" source opened after trace_mooncake_oracle(1)
 * on the calling thread parse every record with cJSON, bypassing the
 * typed scanner (the fuzzers' oracle: both must yield the same records
 * and errors); 0 restores the default. */
void trace_mooncake_oracle(int on);

/* The built-in sources, each defined in its own file. */
extern const trace_source_ops_t trace_source_mooncake; /* mooncake.c */
extern const trace_source_ops_t trace_source_azure;    /* azure.c */
extern const trace_source_ops_t trace_source_kimi;     /* gen_kimi.c */
extern const trace_source_ops_t trace_source_arxiv;    /* gen_datasets.c */
extern const trace_source_ops_t trace_source_leval;    /* gen_datasets.c */
extern const trace_source_ops_t trace_source_longctx;  /* gen_datasets.c */
extern const trace_source_ops_t trace_source_agentic;  /* gen_agentic.c */

#endif
