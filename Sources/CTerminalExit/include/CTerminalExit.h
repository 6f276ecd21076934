#ifndef C_TERMINAL_EXIT_H
#define C_TERMINAL_EXIT_H

#include <stddef.h>

/*
 * Leaving the full-screen app on SIGINT, SIGTERM or SIGHUP (the terminal closed) from the
 * signal handler itself, which may interrupt the app anywhere: in malloc, or in the Swift
 * runtime's one-time initialisation of a global. So the handler does only what is
 * async-signal-safe: it writes bytes prepared beforehand (the app's modes off, terminfo's
 * `rmcup` and `cnorm`), puts back the tty modes saved before ncurses took the terminal, and
 * calls _exit(128 + signal). A handler that called into Swift or ncurses could wait forever
 * on a lock the interrupted code held, spinning at 100% CPU with its terminal gone.
 */

/* Saves the tty's modes as they are now; call before ncurses changes them. */
void terminal_exit_save_modes(void);

/* Sets the bytes the handler writes (at most 512; longer ones are cut). */
void terminal_exit_prepare(const char *bytes, size_t length);

/* Makes `signal_number` leave through the handler. */
void terminal_exit_on(int signal_number);

/*
 * A resize (SIGWINCH) must end the app's wait for input whenever it comes. ncurses's own
 * handler only sets a flag that its next read looks at; a signal that came while the app was
 * handling a key or drawing (or on another thread) cut no wait short, and the app kept its old
 * size until the next key. So the handler installed here calls the one it replaces (ncurses's:
 * install it after ncurses has set its own) and then writes one byte to `descriptor`, a
 * non-blocking pipe the app waits on beside the terminal. Both are async-signal-safe.
 */

/* Makes SIGWINCH also write a byte to `descriptor`. */
void terminal_resize_wakes(int descriptor);

/* Puts back the handler `terminal_resize_wakes` replaced; no byte is written afterwards. */
void terminal_resize_stops_waking(void);

#endif
