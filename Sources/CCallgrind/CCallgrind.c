#include "CCallgrind.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define UBIQ_HAVE_CALLGRIND 1
#endif
#endif

#ifdef UBIQ_HAVE_CALLGRIND
int ubiq_callgrind_available(void) { return 1; }
int ubiq_running_on_valgrind(void) { return (int)RUNNING_ON_VALGRIND; }
void ubiq_callgrind_zero_stats(void) { CALLGRIND_ZERO_STATS; }
void ubiq_callgrind_dump_stats(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
#else
int ubiq_callgrind_available(void) { return 0; }
int ubiq_running_on_valgrind(void) { return 0; }
void ubiq_callgrind_zero_stats(void) {}
void ubiq_callgrind_dump_stats(const char *label) { (void)label; }
#endif
