#ifndef CSQLITEOPTIONS_H
#define CSQLITEOPTIONS_H

/// sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, 0), a variadic call Swift
/// cannot make: closing the last connection then leaves the WAL file as it is, where SQLite
/// would copy it into the database and flush both to disk. `db` is the `sqlite3 *`. Returns
/// SQLite's result code.
int csqlite_keep_wal_on_close(void *db);

/// Replaces the automatic checkpoint of `db` (a `sqlite3 *`) with one that, after a commit
/// leaves `frames` pages or more in the WAL, copies them all into the database and empties
/// the WAL (SQLITE_CHECKPOINT_TRUNCATE), without waiting for other processes: if one is
/// reading, a later commit tries again. It then restores a busy timeout of
/// `busyTimeoutMilliseconds`, the connection's own.
///
/// A connection that leaves the WAL on close needs this: the next process to open the
/// database rebuilds the WAL's index by reading every page in it, and forgets what earlier
/// checkpoints copied, so SQLite's own (passive) checkpoint would never empty it.
void csqlite_truncate_wal_after(void *db, int frames, int busyTimeoutMilliseconds);

/// Copies every page of the WAL of `db` (a `sqlite3 *`) into the database and empties the
/// WAL (SQLITE_CHECKPOINT_TRUNCATE) now, without waiting for other processes: if one is
/// reading or writing, it does what it can and leaves the rest. It then restores a busy
/// timeout of `busyTimeoutMilliseconds`. Returns SQLite's result code.
int csqlite_truncate_wal_now(void *db, int busyTimeoutMilliseconds);

#endif
