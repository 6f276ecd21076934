// A VFS over the default one that keeps the writes not yet synced in memory: see
// csqlite_simulate_power_cuts in CSQLiteOptions.h.
#include "CSQLiteOptions.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/// One write not yet synced: `size` bytes at `offset`.
typedef struct Extent {
    struct Extent *next;
    sqlite3_int64 offset;
    int size;
    unsigned char data[];
} Extent;

/// The writes of one file (by path) not yet synced, shared by every handle of the process
/// on it, as the page cache is. Kept while the file exists, so a write outlives a close.
typedef struct Pending {
    struct Pending *next;
    char *path;
    Extent *first, *last;
    sqlite3_int64 end; // the end of the furthest write kept
} Pending;

typedef struct CutFile {
    sqlite3_file base;
    sqlite3_file *real;
    Pending *pending; // nil: a file written through (temporary files, journals)
} CutFile;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Pending *files;
static sqlite3_vfs *realVFS;
static sqlite3_vfs cutVFS;

static Pending *pendingFor(const char *path) {
    for (Pending *p = files; p; p = p->next) {
        if (strcmp(p->path, path) == 0) return p;
    }
    Pending *p = calloc(1, sizeof(Pending));
    if (!p) return 0;
    p->path = strdup(path);
    p->next = files;
    files = p;
    return p;
}

static void forget(Pending *p) {
    Extent *e = p->first;
    while (e) {
        Extent *next = e->next;
        free(e);
        e = next;
    }
    p->first = p->last = 0;
    p->end = 0;
}

/// Writes `p`'s kept writes through `real`, in order. Called with the lock held.
static int writeThrough(Pending *p, sqlite3_file *real) {
    for (Extent *e = p->first; e; e = e->next) {
        int rc = real->pMethods->xWrite(real, e->data, e->size, e->offset);
        if (rc != SQLITE_OK) return rc;
    }
    forget(p);
    return SQLITE_OK;
}

static int cutClose(sqlite3_file *f) {
    CutFile *c = (CutFile *)f;
    return c->real->pMethods->xClose(c->real);
}

static int cutRead(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    CutFile *c = (CutFile *)f;
    int rc = c->real->pMethods->xRead(c->real, buffer, amount, offset);
    if (!c->pending || (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ)) return rc;
    pthread_mutex_lock(&lock);
    for (Extent *e = c->pending->first; e; e = e->next) {
        sqlite3_int64 from = e->offset > offset ? e->offset : offset;
        sqlite3_int64 to = e->offset + e->size < offset + amount ? e->offset + e->size : offset + amount;
        if (from < to) memcpy((unsigned char *)buffer + (from - offset), e->data + (from - e->offset), (size_t)(to - from));
    }
    sqlite3_int64 end = c->pending->end;
    pthread_mutex_unlock(&lock);
    if (rc == SQLITE_IOERR_SHORT_READ && offset + amount <= end) rc = SQLITE_OK;
    return rc;
}

static int cutWrite(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    CutFile *c = (CutFile *)f;
    if (!c->pending) return c->real->pMethods->xWrite(c->real, buffer, amount, offset);
    Extent *e = malloc(sizeof(Extent) + (size_t)amount);
    if (!e) return SQLITE_IOERR_NOMEM;
    e->next = 0;
    e->offset = offset;
    e->size = amount;
    memcpy(e->data, buffer, (size_t)amount);
    pthread_mutex_lock(&lock);
    if (c->pending->last) c->pending->last->next = e; else c->pending->first = e;
    c->pending->last = e;
    if (offset + amount > c->pending->end) c->pending->end = offset + amount;
    pthread_mutex_unlock(&lock);
    return SQLITE_OK;
}

/// Writes the kept writes of `c`'s file through its real file, if it keeps any.
static int flush(CutFile *c) {
    if (!c->pending) return SQLITE_OK;
    pthread_mutex_lock(&lock);
    int rc = writeThrough(c->pending, c->real);
    pthread_mutex_unlock(&lock);
    return rc;
}

static int cutTruncate(sqlite3_file *f, sqlite3_int64 size) {
    CutFile *c = (CutFile *)f;
    // Written through first: a truncation is taken as durable (a real one may not be, so
    // this loses less than a power cut could, never more).
    int rc = flush(c);
    return rc != SQLITE_OK ? rc : c->real->pMethods->xTruncate(c->real, size);
}

static int cutSync(sqlite3_file *f, int flags) {
    CutFile *c = (CutFile *)f;
    int rc = flush(c);
    return rc != SQLITE_OK ? rc : c->real->pMethods->xSync(c->real, flags);
}

static int cutFileSize(sqlite3_file *f, sqlite3_int64 *size) {
    CutFile *c = (CutFile *)f;
    int rc = c->real->pMethods->xFileSize(c->real, size);
    if (rc == SQLITE_OK && c->pending) {
        pthread_mutex_lock(&lock);
        if (c->pending->end > *size) *size = c->pending->end;
        pthread_mutex_unlock(&lock);
    }
    return rc;
}

static int cutLock(sqlite3_file *f, int level) { return ((CutFile *)f)->real->pMethods->xLock(((CutFile *)f)->real, level); }
static int cutUnlock(sqlite3_file *f, int level) { return ((CutFile *)f)->real->pMethods->xUnlock(((CutFile *)f)->real, level); }
static int cutCheckReservedLock(sqlite3_file *f, int *out) {
    return ((CutFile *)f)->real->pMethods->xCheckReservedLock(((CutFile *)f)->real, out);
}
static int cutFileControl(sqlite3_file *f, int op, void *argument) {
    // No memory map: every read goes through cutRead, which sees the writes kept.
    if (op == SQLITE_FCNTL_MMAP_SIZE) return SQLITE_NOTFOUND;
    return ((CutFile *)f)->real->pMethods->xFileControl(((CutFile *)f)->real, op, argument);
}
static int cutSectorSize(sqlite3_file *f) { return ((CutFile *)f)->real->pMethods->xSectorSize(((CutFile *)f)->real); }
static int cutDeviceCharacteristics(sqlite3_file *f) {
    return ((CutFile *)f)->real->pMethods->xDeviceCharacteristics(((CutFile *)f)->real);
}
static int cutShmMap(sqlite3_file *f, int page, int size, int extend, void volatile **out) {
    return ((CutFile *)f)->real->pMethods->xShmMap(((CutFile *)f)->real, page, size, extend, out);
}
static int cutShmLock(sqlite3_file *f, int offset, int n, int flags) {
    return ((CutFile *)f)->real->pMethods->xShmLock(((CutFile *)f)->real, offset, n, flags);
}
static void cutShmBarrier(sqlite3_file *f) { ((CutFile *)f)->real->pMethods->xShmBarrier(((CutFile *)f)->real); }
static int cutShmUnmap(sqlite3_file *f, int deleteFlag) {
    return ((CutFile *)f)->real->pMethods->xShmUnmap(((CutFile *)f)->real, deleteFlag);
}
static int cutFetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **out) {
    (void)f, (void)offset, (void)amount;
    *out = 0;
    return SQLITE_OK;
}
static int cutUnfetch(sqlite3_file *f, sqlite3_int64 offset, void *pointer) {
    (void)f, (void)offset, (void)pointer;
    return SQLITE_OK;
}

static const sqlite3_io_methods cutMethods = {
    3, cutClose, cutRead, cutWrite, cutTruncate, cutSync, cutFileSize, cutLock, cutUnlock, cutCheckReservedLock,
    cutFileControl, cutSectorSize, cutDeviceCharacteristics, cutShmMap, cutShmLock, cutShmBarrier, cutShmUnmap,
    cutFetch, cutUnfetch,
};

static int cutOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags, int *outFlags) {
    (void)vfs;
    CutFile *c = (CutFile *)f;
    c->real = (sqlite3_file *)(c + 1);
    c->pending = 0;
    int rc = realVFS->xOpen(realVFS, name, c->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        c->base.pMethods = 0;
        return rc;
    }
    if (name && (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL))) {
        pthread_mutex_lock(&lock);
        c->pending = pendingFor(name);
        pthread_mutex_unlock(&lock);
        if (!c->pending) {
            c->real->pMethods->xClose(c->real);
            c->base.pMethods = 0;
            return SQLITE_NOMEM;
        }
    }
    c->base.pMethods = &cutMethods;
    return SQLITE_OK;
}

static int cutDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    pthread_mutex_lock(&lock);
    for (Pending *p = files; p; p = p->next) {
        if (strcmp(p->path, name) == 0) forget(p);
    }
    pthread_mutex_unlock(&lock);
    return realVFS->xDelete(realVFS, name, syncDirectory);
}

static int cutAccess(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    (void)vfs;
    return realVFS->xAccess(realVFS, name, flags, out);
}
static int cutFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return realVFS->xFullPathname(realVFS, name, size, out);
}
static int cutRandomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return realVFS->xRandomness(realVFS, size, out);
}
static int cutSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return realVFS->xSleep(realVFS, microseconds);
}
static int cutCurrentTime(sqlite3_vfs *vfs, double *out) {
    (void)vfs;
    return realVFS->xCurrentTime(realVFS, out);
}
static int cutGetLastError(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return realVFS->xGetLastError(realVFS, size, out);
}
static int cutCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    return realVFS->xCurrentTimeInt64(realVFS, out);
}

int csqlite_simulate_power_cuts(void) {
    if (realVFS) return SQLITE_OK;
    realVFS = sqlite3_vfs_find(0);
    if (!realVFS) return SQLITE_ERROR;
    cutVFS = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(CutFile) + realVFS->szOsFile,
        .mxPathname = realVFS->mxPathname,
        .zName = "ideabox-power-cut",
        .xOpen = cutOpen,
        .xDelete = cutDelete,
        .xAccess = cutAccess,
        .xFullPathname = cutFullPathname,
        .xDlOpen = 0,
        .xRandomness = cutRandomness,
        .xSleep = cutSleep,
        .xCurrentTime = cutCurrentTime,
        .xGetLastError = cutGetLastError,
        .xCurrentTimeInt64 = cutCurrentTimeInt64,
    };
    return sqlite3_vfs_register(&cutVFS, 1);
}
