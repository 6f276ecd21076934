/*
 * ICU's common data for `ideabox` and `ideabox-full`, left empty: the 34 MB that Foundation's
 * ICU (_FoundationICU) would otherwise put in each of them. Foundation links ICU whole,
 * through GRDB's DateFormatter and the like, but neither binary formats a date or a number,
 * collates or breaks text through it: IdeaBox writes its own timestamps and JSON, searches
 * with SQLite, measures widths itself and reads the local time with localtime_r. Traced
 * (strace, ICU's file fallback) through the command-line and end-to-end suites, the only
 * lookups left are the local time zone's name, for the Calendar that Hummingbird then sets
 * to GMT for its Date header (BENCHMARKS.md, "Installed size"). A lookup finds nothing: a
 * formatter that needed data would stop the process, which the suites would show. One use
 * fails quietly instead: `URLComponents.host` goes through ICU's IDNA and is nil for every
 * URL, so nothing here reads a host that way (`URL.host` works; PostgresURL parses its own).
 *
 * Defining ICU's data symbol here keeps the linker from taking `icu_packaged_data.cpp.o` out
 * of lib_FoundationICU.a. The header is ICU's own stub data (icu4c/source/stubdata): a
 * table of contents with no entries. A toolchain with another ICU names another symbol:
 * this one is then unused and the full data comes back, never a missing symbol
 * (Packaging/check-deb fails CI past the size budget).
 */
#include <stdint.h>

/* ICU's UDataInfo. */
struct ICUDataInfo {
    uint16_t size;
    uint16_t reservedWord;
    uint8_t isBigEndian;
    uint8_t charsetFamily;
    uint8_t sizeofUChar;
    uint8_t reservedByte;
    uint8_t dataFormat[4];
    uint8_t formatVersion[4];
    uint8_t dataVersion[4];
};

/* The header of ICU's common data ("ToCP", a table of contents) and its entry count. */
struct ICUEmptyCommonData {
    uint16_t headerSize;
    uint8_t magic1;
    uint8_t magic2;
    struct ICUDataInfo info;
    uint8_t padding[8];
    uint32_t count;
    uint32_t reserved;
    uint32_t entry[2];
};

const struct ICUEmptyCommonData icudt76_dat = {
    .headerSize = 32,
    .magic1 = 0xda,
    .magic2 = 0x27,
    .info = {
        .size = sizeof(struct ICUDataInfo),
        .isBigEndian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
        .charsetFamily = 0,  /* ASCII */
        .sizeofUChar = 2,
        .dataFormat = {'T', 'o', 'C', 'P'},
        .formatVersion = {1, 0, 0, 0},
    },
    .count = 0,
};
