#include "CSQLiteOptions.h"

#include <sqlite3.h>

int csqlite_keep_wal_on_close(void *db) {
    return sqlite3_db_config((sqlite3 *)db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
