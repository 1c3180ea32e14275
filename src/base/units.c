/* Units from column names (see units.h): the project names every quantity with its unit. */
#include "units.h"

#include <string.h>

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s);
    size_t k = strlen(tail);

    return n >= k && strcmp(s + n - k, tail) == 0;
}

const char *sp_units_of(const char *name)
{
    /* longest, most specific tails first: "_frac" before "_s", "tflops" before "flops" */
    static const struct {
        const char *tail;
        const char *units;
    } rules[] = {
        {"_us", "us"},
        {"_ms", "ms"},
        {"_ns", "ns"},
        {"_gbps", "GB/s"},
        {"_mib", "MiB"},
        {"bytes", "bytes"},
        {"_gib", "GiB"},
        {"tflops", "TFLOP/s"},
        {"flops", "FLOP"},
        {"flops_per_step", "FLOP"},
        {"_frac", "fraction"},
        {"ci_rel", "fraction"},
        {"trend_rel", "fraction"},
        {"overlap", "fraction"},
        {"_p", "probability"},
        {"_s", "s"},
    };

    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        if (ends_with(name, rules[i].tail)) {
            return rules[i].units;
        }
    }
    return "";
}
