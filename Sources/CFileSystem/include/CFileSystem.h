#ifndef CFILESYSTEM_H
#define CFILESYSTEM_H

/// syncfs(2), which glibc declares only under _GNU_SOURCE: flushes every file of one file
/// system with one call, where an fsync per file would take one disk flush each.
int cfs_syncfs(int fd);

#endif
