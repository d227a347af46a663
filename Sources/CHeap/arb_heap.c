#include "arb_heap.h"

#include <malloc.h>

void arb_heap_release_free(void) { malloc_trim(0); }
