#ifndef CNCURSES_SHIM_H
#define CNCURSES_SHIM_H

/* The wide-character ncurses API (cchar_t, wget_wch, wadd_wch) is only declared with these. */
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <locale.h>
#include <stdbool.h>
#include <string.h>
#include <wchar.h>
#include <ncursesw/curses.h>

/* glibc declares wcwidth() only for _XOPEN_SOURCE, which the Glibc module is built without. */
extern int wcwidth(wchar_t character);

/* The cells the terminal gives a character: the libc function ncurses itself relies on. */
static inline int cncurses_wcwidth(wchar_t character) {
    return wcwidth(character);
}

/* `stdscr` is a mutable C global; Swift 6 refuses to read it directly. */
static inline WINDOW *cncurses_stdscr(void) {
    return stdscr;
}

/* COLORS is a mutable C global too. */
static inline int cncurses_colors(void) {
    return COLORS;
}

/* newterm() rather than initscr(), which exits the process when the terminal is unusable. */
static inline SCREEN *cncurses_newterm(void) {
    return newterm(NULL, stdout, stdin);
}

/* Whether ncurses has set up a screen and is not in endwin(); false before newterm(). */
static inline bool cncurses_is_active(void) {
    return stdscr != NULL && !isendwin();
}

/* A_BOLD and friends are function-like macros, which Swift cannot import. */
static inline attr_t cncurses_attributes(bool bold, bool underline, bool reverse, bool dim) {
    attr_t attributes = A_NORMAL;
    if (bold) attributes |= A_BOLD;
    if (underline) attributes |= A_UNDERLINE;
    if (reverse) attributes |= A_REVERSE;
    if (dim) attributes |= A_DIM;
    return attributes;
}

/*
 * Adds one glyph: a spacing character followed by up to CCHARW_MAX - 1 characters that the
 * terminal joins to it. setcchar() would drop everything after the first later character
 * whose wcwidth() is not zero (the emoji after a ZWJ), so the cell is filled by hand;
 * ncurses advances by the width of the first character and writes every stored character.
 */
static inline int cncurses_add_glyph(WINDOW *window, const wchar_t *characters, int count,
                                     attr_t attributes, short pair) {
    if (count < 1 || count > CCHARW_MAX) return ERR;
    cchar_t cell;
    memset(&cell, 0, sizeof cell);
    wchar_t first[2] = { characters[0], L'\0' };
    if (setcchar(&cell, first, attributes, pair, NULL) == ERR) return ERR;
    for (int index = 1; index < count; index++) {
        cell.chars[index] = characters[index];
    }
    return wadd_wch(window, &cell);
}

#endif
