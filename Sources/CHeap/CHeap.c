#include "CHeap.h"

#include <stdlib.h> // defines __GLIBC__ where the C library is glibc

#ifdef __GLIBC__
#include <malloc.h>

int cheap_trim(void) {
    return malloc_trim(0);
}

long long cheap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (long long)(info.uordblks + info.hblkhd);
}
#else
int cheap_trim(void) {
    return 0;
}

long long cheap_in_use(void) {
    return -1;
}
#endif
