/* sim/core/opts.h: a command's options, declared once in a table from which the
 * getopt_long arrays (long options and short-option string) and the option
 * lines of its --help are built. Invariant: the parser accepts exactly the
 * table's options, and --help lists each visible entry once, as written. */
#ifndef SIM_OPTS_H
#define SIM_OPTS_H

#include <stdio.h>

struct option;

/* One option. A table is an array of these ended by an entry whose name is
 * NULL ({0}). Long names and short letters are unique within a table (a
 * bug otherwise: asserted by sim_opts_new). */
typedef struct sim_opt {
    int id;           /* what sim_opts_next returns for it: >= 0 */
    const char *name; /* long name without the dashes ("max-probes") */
    char short_name;  /* the letter of its short form, or 0 for none */
    const char *arg;  /* the argument's name in --help ("DIR"), NULL for a flag */
    const char *help; /* its --help text; each '\n' starts a line aligned under
                         the text; NULL hides the option from --help */
} sim_opt_t;

/* A parser over one argv; opaque. */
typedef struct sim_opts sim_opts_t;

/* What sim_opts_next returns besides an id. */
#define SIM_OPTS_END (-1) /* no more options: the operands start at optind */
#define SIM_OPTS_BAD (-2) /* unknown option or missing argument (getopt printed why) */

/* A parser of argv[1..argc-1] (argv[0] names the command in getopt's
 * messages) by table, which must outlive it. Resets getopt's state (optind).
 * O(n^2) in the table's entries (the duplicate checks). Free with
 * sim_opts_free (accepts NULL). */
sim_opts_t *sim_opts_new(const sim_opt_t *table, int argc, char **argv);
void sim_opts_free(sim_opts_t *p);

/* The next option's id (*arg gets its argument, or NULL for a flag),
 * SIM_OPTS_END or SIM_OPTS_BAD. getopt_long underneath: GNU permutation,
 * unambiguous prefixes of long names, clustered short flags. */
int sim_opts_next(sim_opts_t *p, const char **arg);

/* The arrays handed to getopt_long, owned by p: the long options (val is
 * internal; ended by a zero entry) and the short-option string ("o:qh",
 * in table order). */
const struct option *sim_opts_long(const sim_opts_t *p);
const char *sim_opts_short(const sim_opts_t *p);

/* The entry of table with this id, or NULL. O(n). */
const sim_opt_t *sim_opts_find(const sim_opt_t *table, int id);

/* Print the option lines of --help for table's visible entries, in table
 * order: "  -o, --out DIR  text" ("      --name ARG" without a short
 * form). The texts start in one column, two spaces past the widest entry
 * ("-o, --out DIR") or past SIM_OPTS_HELP_COL characters if that is less;
 * a wider entry has its text two spaces after it. */
#define SIM_OPTS_HELP_COL 20
void sim_opts_print(FILE *f, const sim_opt_t *table);

/* A command's --help on stdout: usage (its usage line and description),
 * the option lines of table, then tail ("" for none). Returns 0, the exit
 * status. */
int sim_opts_help(const char *usage, const sim_opt_t *table, const char *tail);

/* "mooncake-sim CMD: MSG (try 'mooncake-sim CMD --help')" on stderr;
 * returns 2, the exit status of a usage error. */
int sim_opts_usage_error(const char *cmd, const char *msg);

#endif
