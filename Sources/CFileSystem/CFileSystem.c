#define _GNU_SOURCE
#include <unistd.h>
#include "CFileSystem.h"

int cfs_syncfs(int fd) {
    return syncfs(fd);
}
