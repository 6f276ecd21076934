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

/// Makes this process's SQLite a machine that loses power when the process is killed: a
/// VFS ("ideabox-power-cut", registered as the default) keeps every write to a database or
/// its WAL in memory until the file is synced (xSync), and only then writes it through. A
/// `kill -9` then takes back exactly what a power cut would: every write not yet synced
/// (the page cache a killed process leaves is not a lost machine's). Reads, of any
/// connection of the process, see the writes kept. For tests only (`serve` turns it on
/// under IDEABOX_SIMULATE_POWER_CUTS=1); call before the first database opens. Returns
/// SQLite's result code.
int csqlite_simulate_power_cuts(void);

#endif
