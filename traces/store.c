/* traces/store.c: see store.h. An entry is one parsed file: its records
 * in record order (ids and dependencies in two shared arrays) and the
 * error that ended the stream, if one did. Invariant: an entry in state
 * READY is immutable, so replays read it without a lock. */
#include "traces/store.h"

#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

enum { ENTRY_BUILDING, ENTRY_READY, ENTRY_STREAM };
#define STORE_FORMAT_LEN 32 /* longer than any source's name */

/* One record as the source yielded it (arrival unscaled, output uncut);
 * blocks and deps are offsets into the entry's arrays. 80 bytes. */
typedef struct store_rec {
    sim_time_t arrival_ns, wait_ns;
    int64_t input_tok, output_tok, record, key, session;
    uint64_t blocks; /* offset into ids */
    uint32_t n_blocks, n_deps;
    uint64_t deps;   /* offset into deps */
} store_rec_t;

typedef struct store_entry {
    /* the key */
    char *path;
    char format[STORE_FORMAT_LEN];
    int64_t block_tok;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    /* the records (READY) */
    int state;
    store_rec_t *recs;
    size_t n_recs, recs_cap;
    uint64_t *ids;
    size_t n_ids, ids_cap;
    int64_t *deps;
    size_t n_deps, deps_cap;
    int failed;     /* the stream ended in err after the records */
    sim_err_t err;
    int64_t bytes;
    struct store_entry *next;
} store_entry_t;

struct trace_store {
    pthread_mutex_t mu;
    pthread_cond_t built; /* an entry left state BUILDING */
    int64_t max_bytes, bytes;
    int n_ready;
    store_entry_t *entries;
};

trace_store_t *trace_store_new(int64_t max_bytes)
{
    trace_store_t *s = sim_xcalloc(1, sizeof *s, "trace store");
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->built, NULL);
    s->max_bytes = max_bytes > 0 ? max_bytes : 0;
    return s;
}

static void entry_clear(store_entry_t *e)
{
    sim_free(e->recs);
    sim_free(e->ids);
    sim_free(e->deps);
    e->recs = NULL;
    e->ids = NULL;
    e->deps = NULL;
    e->n_recs = e->recs_cap = e->n_ids = e->ids_cap = e->n_deps = e->deps_cap = 0;
    e->bytes = 0;
}

void trace_store_free(trace_store_t *s)
{
    if (!s)
        return;
    for (store_entry_t *e = s->entries, *next; e; e = next) {
        next = e->next;
        entry_clear(e);
        sim_free(e->path);
        sim_free(e);
    }
    pthread_cond_destroy(&s->built);
    pthread_mutex_destroy(&s->mu);
    sim_free(s);
}

int64_t trace_store_bytes(trace_store_t *s)
{
    pthread_mutex_lock(&s->mu);
    int64_t b = s->bytes;
    pthread_mutex_unlock(&s->mu);
    return b;
}

int trace_store_entries(trace_store_t *s)
{
    pthread_mutex_lock(&s->mu);
    int n = s->n_ready;
    pthread_mutex_unlock(&s->mu);
    return n;
}

/* ---- replay ---- */

typedef struct store_reader {
    const store_entry_t *e;
    size_t next; /* the record to yield next */
} store_reader_t;

static int replay_next(void *state, trace_req_t *out, sim_err_t *err)
{
    store_reader_t *r = state;
    const store_entry_t *e = r->e;
    if (r->next == e->n_recs)
        return e->failed ? sim_errf(err, "%s", e->err.msg) : TRACE_END;
    const store_rec_t *x = &e->recs[r->next++];
    out->arrival_ns = x->arrival_ns;
    out->input_tok = x->input_tok;
    out->output_tok = x->output_tok;
    out->n_blocks = x->n_blocks;
    out->blocks = e->ids + x->blocks;
    out->record = x->record;
    out->key = x->key;
    out->session = x->session;
    out->n_deps = x->n_deps;
    out->deps = x->n_deps ? e->deps + x->deps : NULL;
    out->wait_ns = x->wait_ns;
    return TRACE_OK;
}

static void replay_close(void *state)
{
    sim_free(state);
}

/* Not in the registry: reached only through trace_store_open. */
static const trace_source_ops_t replay_ops = {
    .name = "stored",
    .help = "a trace file parsed once, replayed from memory",
    .next = replay_next,
    .close = replay_close,
};

/* ---- building ---- */

/* Append r to e; 0, or -1 when e would pass room bytes. */
static int entry_add(store_entry_t *e, const trace_req_t *r, int64_t room)
{
    e->bytes += (int64_t)sizeof(store_rec_t) + 8 * (int64_t)r->n_blocks + 8 * (int64_t)r->n_deps;
    if (e->bytes > room)
        return -1;
    sim_grow((void **)&e->recs, &e->recs_cap, e->n_recs + 1, sizeof *e->recs, "trace store");
    sim_grow((void **)&e->ids, &e->ids_cap, e->n_ids + r->n_blocks, sizeof *e->ids,
             "trace store ids");
    if (r->n_deps)
        sim_grow((void **)&e->deps, &e->deps_cap, e->n_deps + r->n_deps, sizeof *e->deps,
                 "trace store deps");
    e->recs[e->n_recs++] = (store_rec_t){
        .arrival_ns = r->arrival_ns, .wait_ns = r->wait_ns, .input_tok = r->input_tok,
        .output_tok = r->output_tok, .record = r->record, .key = r->key, .session = r->session,
        .blocks = e->n_ids, .n_blocks = r->n_blocks, .n_deps = r->n_deps, .deps = e->n_deps,
    };
    memcpy(e->ids + e->n_ids, r->blocks, (size_t)r->n_blocks * sizeof *e->ids);
    e->n_ids += r->n_blocks;
    if (r->n_deps) {
        memcpy(e->deps + e->n_deps, r->deps, (size_t)r->n_deps * sizeof *e->deps);
        e->n_deps += r->n_deps;
    }
    return 0;
}

/* Parse e's file whole (the records as the source yields them: speed 1,
 * no limit, no cap, dependencies not held) within room bytes: ENTRY_READY,
 * or ENTRY_STREAM when it does not fit or cannot be opened. */
static int entry_build(store_entry_t *e, const trace_open_args_t *args, int64_t room)
{
    trace_open_args_t raw = *args;
    raw.speed = 1;
    raw.limit = 0;
    raw.output_cap = 0;
    sim_err_t err;
    trace_t *t = trace_open(&raw, &err);
    if (!t)
        return ENTRY_STREAM;
    trace_req_t r;
    int rc;
    while ((rc = trace_next(t, &r, &e->err)) == TRACE_OK)
        if (entry_add(e, &r, room) != 0)
            break;
    trace_close(t);
    if (rc == TRACE_OK) {
        entry_clear(e);
        return ENTRY_STREAM;
    }
    e->failed = rc == TRACE_ERR;
    /* Exact sizes: the bytes counted are the bytes held. */
    e->recs = sim_xrealloc(e->recs, e->n_recs * sizeof *e->recs + 1, "trace store");
    e->ids = sim_xrealloc(e->ids, e->n_ids * sizeof *e->ids + 1, "trace store ids");
    if (e->deps)
        e->deps = sim_xrealloc(e->deps, e->n_deps * sizeof *e->deps, "trace store deps");
    return ENTRY_READY;
}

/* 1 when args can be stored: a file, read by a file source. */
static int storable(const trace_open_args_t *args)
{
    if (!args->path || !args->path[0])
        return 0;
    const char *fmt = args->format;
    if (!fmt || !fmt[0] || strcmp(fmt, "auto") == 0)
        return !(args->gen && args->gen->kind[0]);
    const trace_source_ops_t *ops = trace_source_find(fmt);
    return ops && !ops->is_generator && strlen(fmt) < STORE_FORMAT_LEN;
}

static int same_key(const store_entry_t *e, const char *path, const char *fmt, int64_t block_tok,
                    const struct stat *st)
{
    return e->dev == st->st_dev && e->ino == st->st_ino && e->size == st->st_size &&
           e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec &&
           e->block_tok == block_tok && strcmp(e->format, fmt) == 0 && strcmp(e->path, path) == 0;
}

/* The entry of args in s, built if new (under no lock, others of its key
 * waiting); NULL when args is to be streamed. */
static const store_entry_t *lookup(trace_store_t *s, const trace_open_args_t *args)
{
    struct stat st;
    if (s->max_bytes == 0 || !storable(args) || stat(args->path, &st) != 0)
        return NULL;
    const char *fmt = args->format && args->format[0] ? args->format : "auto";
    int64_t block_tok = args->block_tok ? args->block_tok : TRACE_BLOCK_TOK;
    pthread_mutex_lock(&s->mu);
    store_entry_t *e = s->entries;
    while (e && !same_key(e, args->path, fmt, block_tok, &st))
        e = e->next;
    if (e) {
        while (e->state == ENTRY_BUILDING)
            pthread_cond_wait(&s->built, &s->mu);
        pthread_mutex_unlock(&s->mu);
        return e->state == ENTRY_READY ? e : NULL;
    }
    e = sim_xcalloc(1, sizeof *e, "trace store entry");
    e->path = sim_xstrdup(args->path, "trace store path");
    snprintf(e->format, sizeof e->format, "%s", fmt);
    e->block_tok = block_tok;
    e->dev = st.st_dev;
    e->ino = st.st_ino;
    e->size = st.st_size;
    e->mtime = st.st_mtim;
    e->state = ENTRY_BUILDING;
    e->next = s->entries;
    s->entries = e;
    int64_t room = s->max_bytes - s->bytes;
    pthread_mutex_unlock(&s->mu);

    int state = entry_build(e, args, room);

    pthread_mutex_lock(&s->mu);
    /* Entries built at once share the bound: the later one streams. */
    if (state == ENTRY_READY && e->bytes > s->max_bytes - s->bytes) {
        entry_clear(e);
        state = ENTRY_STREAM;
    }
    if (state == ENTRY_READY) {
        s->bytes += e->bytes;
        s->n_ready++;
    }
    e->state = state;
    pthread_cond_broadcast(&s->built);
    pthread_mutex_unlock(&s->mu);
    return state == ENTRY_READY ? e : NULL;
}

trace_t *trace_store_open(trace_store_t *s, const trace_open_args_t *args, sim_err_t *err)
{
    const store_entry_t *e = s ? lookup(s, args) : NULL;
    if (!e)
        return trace_open(args, err);
    store_reader_t *r = sim_xcalloc(1, sizeof *r, "trace store reader");
    r->e = e;
    return trace_wrap(&replay_ops, r, args, err);
}
