#ifndef CSQLITEOPTIONS_H
#define CSQLITEOPTIONS_H

/// sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, 0), a variadic call Swift
/// cannot make: closing the last connection then leaves the WAL file as it is, where SQLite
/// would copy it into the database and flush both to disk. `db` is the `sqlite3 *`. Returns
/// SQLite's result code.
int csqlite_keep_wal_on_close(void *db);

#endif
