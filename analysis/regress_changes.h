/* What changed at a change point of `scaleprobe regress`: the options (/config) and the
 * majority fingerprint that differ between the last run before the shift and the first run
 * after it, found with the functions compare uses (h5attrs.h, fpdiff.h). Not a public API. */
#ifndef SP_REGRESS_CHANGES_H
#define SP_REGRESS_CHANGES_H

#include <stddef.h>
#include <stdio.h>

/*
 * Print what differs between the result files `before` and `after` (runs run - 1 and run).
 * Text: a line "# What changed at run RUN (BEFORE -> AFTER):", then "#   option KEY: A -> B"
 * for every /config attribute that differs (the options naming the output file are left out:
 * they differ between any two runs), then "#   fingerprint FIELD: A -> B", or "#   (nothing
 * recorded differs)". json: one object {"run", "before", "after", "options": [{"key", "a",
 * "b"}], "fingerprint": [{"field", "a", "b"}]}. Returns how many differences were printed.
 */
int sp__regress_what_changed(size_t run, const char *before, const char *after, int json,
                             FILE *out);

#endif
