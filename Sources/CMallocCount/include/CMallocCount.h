#ifndef ARBKIT_MALLOC_COUNT_H
#define ARBKIT_MALLOC_COUNT_H

/// Heap allocations (malloc, calloc, realloc, and the aligned forms) made by this
/// process since it started, counted by the wrappers in malloc_count.c.
unsigned long arb_allocation_count(void);

#endif
