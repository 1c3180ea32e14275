/* libFuzzer harness: the acceptance spec parser (accept/spec.c over cJSON), the one file format
 * a user hands scaleprobe besides its options. The input is the spec's text; a parse either
 * succeeds with every count inside its table or fails with one "PATH:LINE: what" message. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static sp_spec_t spec; /* large: not on the stack */
    char err[512];
    char *text;

    if (size > 65536) {
        return 0;
    }
    text = malloc(size + 1);
    if (text == NULL) {
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    err[0] = '\0';
    if (sp_spec_parse(text, "fuzz.json", &spec, err, sizeof(err)) == SP_OK) {
        if (spec.ntypes < 0 || spec.ntypes > SP_SPEC_MAX_TYPES || spec.repeats < 1) {
            abort();
        }
        for (int t = 0; t < spec.ntypes; t++) {
            if (spec.types[t].nchecks < 0 || spec.types[t].nchecks > SP_SPEC_MAX_CHECKS) {
                abort();
            }
        }
        (void)sp_spec_match(&spec, "node001", 8);
    } else if (err[0] == '\0' || strncmp(err, "fuzz.json", 9) != 0) {
        abort(); /* a refusal always says where */
    }
    free(text);
    return 0;
}
