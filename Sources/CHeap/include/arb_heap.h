#ifndef ARBKIT_HEAP_H
#define ARBKIT_HEAP_H

/// Gives the heap's free pages back to the system (glibc's `malloc_trim(0)`): freed
/// memory that the heap's live blocks keep from shrinking stays counted in the
/// process's resident memory until then.
void arb_heap_release_free(void);

#endif
