/* The unit tests' command lines: a line split on spaces into argv, argv[0] "coll" as the
 * subcommand sees it. Shared by test_options.c and test_options_table.c. */
#ifndef SP_TEST_OPTLINE_H
#define SP_TEST_OPTLINE_H

#include <stdio.h>
#include <string.h>

#define MAX_ARGS 32
#define ERRLEN 1024

/* Split a command line on spaces into argv (argv[0] is "coll", as the subcommand sees it). */
typedef struct {
    char text[1024];
    char *argv[MAX_ARGS];
    int argc;
} cmdline_t;

static inline void cmdline_split(cmdline_t *c, const char *line)
{
    char *save = NULL;

    snprintf(c->text, sizeof(c->text), "coll %s", line);
    c->argc = 0;
    for (char *tok = strtok_r(c->text, " ", &save); tok != NULL && c->argc < MAX_ARGS;
         tok = strtok_r(NULL, " ", &save)) {
        c->argv[c->argc++] = tok;
    }
}

#endif
