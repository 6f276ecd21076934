#include "CTerminalExit.h"

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
