-- The v10-asset-references migration's fill (PostgresSchema) on 200,000 synthetic records,
-- timed: createdb a scratch database, then psql URL -X -f Benchmarks/asset-references-migration.sql
CREATE TABLE zone (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, account TEXT COLLATE "C" NOT NULL, name TEXT COLLATE "C" NOT NULL, created_at BIGINT NOT NULL, UNIQUE (account, name));
CREATE TABLE record (zone_id BIGINT NOT NULL REFERENCES zone (id) ON DELETE CASCADE, record_name TEXT COLLATE "C" NOT NULL, record_type TEXT NOT NULL, fields TEXT NOT NULL, PRIMARY KEY (zone_id, record_name));
INSERT INTO zone (account, name, created_at) SELECT 'acct' || a, n, 0 FROM generate_series(0,99) a, (VALUES ('Ideas'), ('RawLibraryZone')) z(n);
INSERT INTO record SELECT 1 + (i % 200), 'r' || i, 'Idea',
  CASE WHEN i % 10 = 0 THEN '{"filedata":{"asset":{"checksum":"' || lpad(to_hex(i), 64, '0') || '","size":2000000}},"filename":{"string":"f.json"}}'
  ELSE '{"createdAt":{"timestamp":"2026-11-20T08:15:30.000Z"},"description":{"string":"' || repeat('x', 200) || '"},"title":{"string":"idea ' || i || '"},"version":{"int64":3}}' END
FROM generate_series(1, 200000) i;
\timing on
CREATE TABLE asset_reference (zone_id BIGINT NOT NULL REFERENCES zone (id) ON DELETE CASCADE, record_name TEXT COLLATE "C" NOT NULL, checksum TEXT COLLATE "C" NOT NULL, PRIMARY KEY (zone_id, record_name, checksum));
CREATE INDEX asset_reference_by_checksum ON asset_reference (checksum, zone_id);
INSERT INTO asset_reference (zone_id, record_name, checksum)
SELECT DISTINCT record.zone_id, record.record_name, named.match[1]
FROM record, regexp_matches(record.fields, '\{"asset":\{"checksum":"([0-9a-f]{64})"', 'g') AS named(match)
WHERE strpos(record.fields, '{"asset":{"checksum":') > 0
ON CONFLICT DO NOTHING;
