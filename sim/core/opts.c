/* sim/core/opts.c: see opts.h. The long options' val is OPTS_VAL0 + the entry's
 * index (never a letter or '?'), and a short letter is looked up in the
 * table, so both forms map to the entry and its id. */
#include "sim/core/opts.h"

#include <ctype.h>
#include <getopt.h>
#include <string.h>

#include "sim/core/util.h"

#define OPTS_VAL0 256

struct sim_opts {
    const sim_opt_t *table;
    size_t n;
    struct option *lo; /* n + 1 entries, the last zero */
    char *so;          /* at most 2n + 1 chars */
    int argc;
    char **argv;
};

static size_t count(const sim_opt_t *t)
{
    size_t n = 0;
    while (t[n].name)
        n++;
    return n;
}

/* A table with a duplicate long name or short letter is a bug. O(n^2). */
static void check_table(const sim_opt_t *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        SIM_ASSERT(t[i].name[0] != '\0' && t[i].id >= 0);
        SIM_ASSERT(!t[i].short_name || isalnum((unsigned char)t[i].short_name));
        for (size_t j = 0; j < i; j++) {
            SIM_ASSERT(strcmp(t[i].name, t[j].name) != 0);
            SIM_ASSERT(!t[i].short_name || t[i].short_name != t[j].short_name);
        }
    }
}

sim_opts_t *sim_opts_new(const sim_opt_t *table, int argc, char **argv)
{
    size_t n = count(table), k = 0;
    check_table(table, n);
    sim_opts_t *p = sim_xmalloc(sizeof *p, "options parser");
    p->table = table;
    p->n = n;
    p->argc = argc;
    p->argv = argv;
    p->lo = sim_xcalloc(n + 1, sizeof *p->lo, "long options");
    p->so = sim_xmalloc(2 * n + 1, "short options");
    for (size_t i = 0; i < n; i++) {
        const sim_opt_t *o = &table[i];
        p->lo[i] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL,
                                   OPTS_VAL0 + (int)i};
        if (o->short_name) {
            p->so[k++] = o->short_name;
            if (o->arg)
                p->so[k++] = ':';
        }
    }
    p->so[k] = '\0';
    /* 0, not 1: glibc and musl then reset all of getopt's state, including
     * a position inside a cluster left by an earlier parse. */
    optind = 0;
    return p;
}

void sim_opts_free(sim_opts_t *p)
{
    if (!p)
        return;
    sim_free(p->lo);
    sim_free(p->so);
    sim_free(p);
}

int sim_opts_next(sim_opts_t *p, const char **arg)
{
    int c = getopt_long(p->argc, p->argv, p->so, p->lo, NULL);
    *arg = NULL;
    if (c == -1)
        return SIM_OPTS_END;
    size_t i = p->n;
    if (c >= OPTS_VAL0) {
        i = (size_t)(c - OPTS_VAL0);
    } else if (c != '?' && c != ':') {
        for (i = 0; i < p->n && p->table[i].short_name != c; i++)
            ;
    }
    if (i >= p->n)
        return SIM_OPTS_BAD;
    const char *what = p->table[i].arg;
    if (optarg && !optarg[0] && what && (!strcmp(what, "DIR") || !strcmp(what, "FILE"))) {
        /* An empty path names nothing (a shell variable left unset). */
        fprintf(stderr, "mooncake-sim: --%s: an empty %s\n", p->table[i].name,
                what[0] == 'D' ? "directory" : "file name");
        return SIM_OPTS_BAD;
    }
    *arg = optarg;
    return p->table[i].id;
}

const struct option *sim_opts_long(const sim_opts_t *p)
{
    return p->lo;
}

const char *sim_opts_short(const sim_opts_t *p)
{
    return p->so;
}

const sim_opt_t *sim_opts_find(const sim_opt_t *table, int id)
{
    for (; table->name; table++)
        if (table->id == id)
            return table;
    return NULL;
}

/* Width of "-o, --name ARG" (or "    --name ARG"). */
static size_t left_width(const sim_opt_t *o)
{
    return 6 + strlen(o->name) + (o->arg ? 1 + strlen(o->arg) : 0);
}

void sim_opts_print(FILE *f, const sim_opt_t *table)
{
    size_t col = 0;
    for (const sim_opt_t *o = table; o->name; o++)
        if (o->help)
            col = SIM_MAX(col, SIM_MIN(left_width(o), (size_t)SIM_OPTS_HELP_COL));
    for (const sim_opt_t *o = table; o->name; o++) {
        if (!o->help)
            continue;
        if (o->short_name)
            fprintf(f, "  -%c, --%s", o->short_name, o->name);
        else
            fprintf(f, "      --%s", o->name);
        if (o->arg)
            fprintf(f, " %s", o->arg);
        size_t w = left_width(o);
        fprintf(f, "%*s", (int)(w < col ? col - w + 2 : 2), "");
        for (const char *s = o->help;; s++) {
            size_t len = strcspn(s, "\n");
            fprintf(f, "%.*s\n", (int)len, s);
            s += len;
            if (!*s)
                break;
            fprintf(f, "%*s", (int)col + 4, "");
        }
    }
}

int sim_opts_help(const char *usage, const sim_opt_t *table, const char *tail)
{
    fputs(usage, stdout);
    sim_opts_print(stdout, table);
    fputs(tail, stdout);
    return 0;
}

int sim_opts_usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "mooncake-sim %s: %s (try 'mooncake-sim %s --help')\n", cmd, msg, cmd);
    return 2;
}
