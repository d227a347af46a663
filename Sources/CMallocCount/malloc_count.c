// Counts heap allocations of the benchmark process: the allocation functions are
// defined here, in the executable, so that every library's calls (the Swift runtime's
// included) bind to them; each one adds 1 to a counter and forwards to glibc's own
// allocator (the __libc_* entry points glibc exports for this purpose). Only the
// benchmark binary links this file.
#include <stdatomic.h>
#include <stddef.h>
#include <errno.h>
#include "CMallocCount.h"

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static atomic_ulong allocations;

static inline void counted(void) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); }

unsigned long arb_allocation_count(void) { return atomic_load_explicit(&allocations, memory_order_relaxed); }

void *malloc(size_t size) { counted(); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { counted(); return __libc_calloc(count, size); }
void *realloc(void *pointer, size_t size) { counted(); return __libc_realloc(pointer, size); }
void free(void *pointer) { __libc_free(pointer); }
void *memalign(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { counted(); return __libc_memalign(alignment, size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
  if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  counted();
  void *pointer = __libc_memalign(alignment, size);
  if (pointer == NULL && size != 0) return ENOMEM;
  *out = pointer;
  return 0;
}
