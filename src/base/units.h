/* The units of a result-file or export column, read off its name: the writer stores them as
 * HDF5 attributes and the exporter in columns.csv, so both say the same (docs/SCHEMA.md,
 * "Units and descriptions"). */
#ifndef SP_UNITS_H
#define SP_UNITS_H

/*
 * Units of the column called name: "us", "ms", "ns", "s", "GB/s", "MiB", "bytes", "TFLOP/s",
 * "FLOP", "fraction" (0..1), "probability", or "" for counts, identifiers, flags and names.
 * The result is a static string.
 */
const char *sp_units_of(const char *name);

#endif
