#include "CHeap.h"

#include <stdlib.h> // defines __GLIBC__ where the C library is glibc

#ifdef __GLIBC__
#include <malloc.h>

int cheap_trim(void) {
    return malloc_trim(0);
}
#else
int cheap_trim(void) {
    return 0;
}
#endif
