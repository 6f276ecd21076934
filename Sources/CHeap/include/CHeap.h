#ifndef CHEAP_H
#define CHEAP_H

/// glibc's malloc_trim(0), which Swift's Glibc module does not declare: gives back to the
/// system every whole page the heap holds free, in each arena, not only at its top (where
/// glibc gives back on its own). 1 if memory was given back, 0 if none was, or where the C
/// library is not glibc.
int cheap_trim(void);

/// The bytes the heap has handed out and not had back, in every arena and in blocks of their
/// own (glibc's mallinfo2: uordblks + hblkhd); -1 where the C library is not glibc. It walks
/// every free chunk with each arena locked (milliseconds with ten thousand connections): for
/// an operator's scrape, not for a loop.
long long cheap_in_use(void);

#endif
