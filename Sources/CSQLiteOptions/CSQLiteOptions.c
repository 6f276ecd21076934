#include "CSQLiteOptions.h"

#include <sqlite3.h>
#include <stdint.h>

int csqlite_keep_wal_on_close(void *db) {
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

/// The hook's argument carries both numbers: the frames in the high 32 bits, the timeout in
/// the low 32, so that nothing is allocated for the connection's lifetime.
static int truncate_when_long(void *argument, sqlite3 *db, const char *name, int frames) {
    uint64_t packed = (uint64_t)(uintptr_t)argument;
    if (frames < (int)(packed >> 32)) return SQLITE_OK;
    csqlite_truncate_wal_now(db, (int)(packed & 0xFFFFFFFFu));
    return SQLITE_OK;
}

int csqlite_truncate_wal_now(void *db, int busyTimeoutMilliseconds) {
    sqlite3_busy_timeout((sqlite3 *)db, 0);
    int code = sqlite3_wal_checkpoint_v2((sqlite3 *)db, "main", SQLITE_CHECKPOINT_TRUNCATE, 0, 0);
    sqlite3_busy_timeout((sqlite3 *)db, busyTimeoutMilliseconds);
    return code;
}

void csqlite_truncate_wal_after(void *db, int frames, int busyTimeoutMilliseconds) {
    uint64_t packed = ((uint64_t)(uint32_t)frames << 32) | (uint32_t)busyTimeoutMilliseconds;
    sqlite3_wal_hook((sqlite3 *)db, truncate_when_long, (void *)(uintptr_t)packed);
}
