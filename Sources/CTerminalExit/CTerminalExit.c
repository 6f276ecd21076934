#include "CTerminalExit.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static char exit_bytes[512];
static volatile size_t exit_length = 0;
static struct termios shell_modes;
static volatile int has_shell_modes = 0;

void terminal_exit_save_modes(void) {
    has_shell_modes = tcgetattr(STDIN_FILENO, &shell_modes) == 0;
}

void terminal_exit_prepare(const char *bytes, size_t length) {
    exit_length = 0;
    if (length > sizeof exit_bytes) length = sizeof exit_bytes;
    memcpy(exit_bytes, bytes, length);
    exit_length = length;
}

static void exit_on_signal(int signal_number) {
    size_t length = exit_length;
    if (length > 0) {
        ssize_t written = write(STDOUT_FILENO, exit_bytes, length);
        (void)written;
    }
    if (has_shell_modes) tcsetattr(STDIN_FILENO, TCSANOW, &shell_modes);
    _exit(128 + signal_number);
}

void terminal_exit_on(int signal_number) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = exit_on_signal;
    sigemptyset(&action.sa_mask);
    sigaction(signal_number, &action, NULL);
}

static struct sigaction resize_previous;
static volatile sig_atomic_t resize_descriptor = -1;
static int resize_installed = 0;

static void wake_on_resize(int signal_number) {
    int saved_errno = errno;
    void (*previous)(int) = resize_previous.sa_handler;
    if ((resize_previous.sa_flags & SA_SIGINFO) == 0 && previous != SIG_DFL && previous != SIG_IGN) previous(signal_number);
    int descriptor = resize_descriptor;
    if (descriptor >= 0) {
        char byte = 1;
        ssize_t written = write(descriptor, &byte, 1);
        (void)written;
    }
    errno = saved_errno;
}

void terminal_resize_wakes(int descriptor) {
    resize_descriptor = descriptor;
    if (resize_installed) return;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = wake_on_resize;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGWINCH, &action, &resize_previous) == 0) resize_installed = 1;
}

void terminal_resize_stops_waking(void) {
    resize_descriptor = -1;
    if (!resize_installed) return;
    sigaction(SIGWINCH, &resize_previous, NULL);
    resize_installed = 0;
}
