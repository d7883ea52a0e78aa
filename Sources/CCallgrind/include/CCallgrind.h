#ifndef CCALLGRIND_H
#define CCALLGRIND_H

// Callgrind's client requests, for ubiq-bench's instruction counts (Docs/Benchmarks.md).
// Each is a no-op outside valgrind; without valgrind's headers at build time
// `ubiq_callgrind_available` returns 0 and the rest do nothing.

/// 1 when valgrind's headers were there at build time.
int ubiq_callgrind_available(void);
/// Nonzero when the process runs under valgrind.
int ubiq_running_on_valgrind(void);
/// Zeroes every thread's counters: a region starts.
void ubiq_callgrind_zero_stats(void);
/// Writes the counters since the last zero (every thread's, summed) to the next dump file.
void ubiq_callgrind_dump_stats(const char *label);

#endif
