#ifndef CHEAP_H
#define CHEAP_H

/// glibc's malloc_trim(0), which Swift's Glibc module does not declare: gives back to the
/// system every whole page the heap holds free, in each arena, not only at its top (where
/// glibc gives back on its own). 1 if memory was given back, 0 if none was, or where the C
/// library is not glibc.
int cheap_trim(void);

#endif
