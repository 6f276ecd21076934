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
#include <wchar.h>
#include <ncursesw/curses.h>
#include <ncursesw/term.h>
#include <unistd.h>

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

/* So is `curscr`, ncurses's picture of what the terminal shows. */
static inline WINDOW *cncurses_curscr(void) {
    return curscr;
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

/*
 * Whether $TERM names a terminal the app can draw on, read from terminfo without taking the
 * terminal over: 1 when it can move the cursor to any cell (`cup`), -1 when it cannot (`dumb`),
 * 0 when terminfo does not know the type.
 */
static inline int cncurses_check_terminal(void) {
    int error = 0;
    if (setupterm(NULL, STDOUT_FILENO, &error) != OK) return 0;
    char *address = tigetstr("cup");
    int usable = address != NULL && address != (char *)-1;
    del_curterm(cur_term);
    return usable ? 1 : -1;
}

#endif
