#!/usr/bin/env python3
"""The v14-asset-references migration's fill (SQLiteSchema) on a synthetic store of N records
(default 200,000; one in twenty names an asset), timed: python3 Benchmarks/asset-references-migration.py"""
import os, random, sqlite3, time
path='/tmp/v14bench.sqlite'
if os.path.exists(path): os.remove(path)
c=sqlite3.connect(path)
c.executescript('''
CREATE TABLE zone (id INTEGER PRIMARY KEY AUTOINCREMENT, account TEXT NOT NULL, name TEXT NOT NULL, createdAt INTEGER NOT NULL, changeSequence INTEGER NOT NULL DEFAULT 0, purgedThrough INTEGER NOT NULL DEFAULT 0, UNIQUE (account, name));
CREATE TABLE record (zoneId INTEGER NOT NULL REFERENCES zone(id) ON DELETE CASCADE, recordName TEXT NOT NULL, changeSequence INTEGER NOT NULL, recordType TEXT NOT NULL, changeTag TEXT NOT NULL, creationDate INTEGER NOT NULL, modificationDate INTEGER NOT NULL, fields TEXT NOT NULL, PRIMARY KEY (zoneId, recordName)) WITHOUT ROWID;
''')
random.seed(1)
N=int(os.environ.get('N','200000'))
rows=[]
for a in range(100):
    c.execute("INSERT INTO zone (account,name,createdAt) VALUES (?, 'Ideas', 0)", (f'acct{a}',))
    c.execute("INSERT INTO zone (account,name,createdAt) VALUES (?, 'RawLibraryZone', 0)", (f'acct{a}',))
for i in range(N):
    z = random.randint(1,200)
    if z % 2 == 0 and i % 10 == 0:
        f = '{"filedata":{"asset":{"checksum":"%064x","size":2000000}},"filename":{"string":"f%d.json"},"path":{"string":"Items/f%d.json"}}' % (i, i, i)
    else:
        f = '{"createdAt":{"timestamp":"2026-11-20T08:15:30.000Z"},"description":{"string":"%s"},"title":{"string":"idea %d"},"version":{"int64":3}}' % ("x"*200, i)
    rows.append((z, f'r{i}', i, 'Idea', 't', 0, 0, f))
c.executemany("INSERT INTO record VALUES (?,?,?,?,?,?,?,?)", rows)
c.commit()
size=os.path.getsize(path)
t=time.time()
c.executescript('''
CREATE TABLE assetReference (zoneId INTEGER NOT NULL REFERENCES zone(id) ON DELETE CASCADE, recordName TEXT NOT NULL, checksum TEXT NOT NULL, PRIMARY KEY (zoneId, recordName, checksum)) WITHOUT ROWID;
CREATE INDEX assetReference_by_checksum ON assetReference(checksum, zoneId);
INSERT OR IGNORE INTO assetReference (zoneId, recordName, checksum)
SELECT record.zoneId, record.recordName, json_extract(tree.value, '$.checksum')
FROM record, json_tree(record.fields) AS tree
WHERE instr(record.fields, '{"asset":{"checksum":') > 0 AND tree.key = 'asset' AND json_extract(tree.value, '$.checksum') IS NOT NULL;
''')
c.commit()
el=time.time()-t
n=c.execute("select count(*) from assetReference").fetchone()[0]
print(f"records={N} file={size/1e6:.0f} MB references={n} v14 migration={el*1000:.0f} ms")
c.close()
os.remove(path)
