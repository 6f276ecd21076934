#ifndef C_EMPTY_ICU_DATA_H
#define C_EMPTY_ICU_DATA_H

/*
 * Nothing to call: linking this target is what counts. It defines ICU's data symbol with
 * an empty table (EmptyICUData.c), so Foundation's 34 MB of ICU data stay out of the binary.
 */

#endif
