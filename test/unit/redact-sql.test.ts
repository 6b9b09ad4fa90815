import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { eventToJson } from '../../src/cli/commands/binlog-dump.js';
import { redactSqlSecrets } from '../../src/common/redact-sql.js';
import type { BinlogFileEntry } from '../../src/source/mysql/binlog/file-reader.js';
import { FileSchemaHistory } from '../../src/stores/file/file-schema-history.js';

test('passwords in account statements are replaced by *** (and nothing else changes)', () => {
  const cases: [string, string][] = [
    ["CREATE USER 'cdc'@'%' IDENTIFIED BY 's3cr3t'", "CREATE USER 'cdc'@'%' IDENTIFIED BY '***'"],
    [
      "ALTER USER u IDENTIFIED WITH mysql_native_password BY 'it''s'",
      "ALTER USER u IDENTIFIED WITH mysql_native_password BY '***'",
    ],
    [
      "CREATE USER u IDENTIFIED BY PASSWORD '*94BDCEBE19083CE2A1F959FD02F964C7AF4CFC29'",
      "CREATE USER u IDENTIFIED BY PASSWORD '***'",
    ],
    ['GRANT ALL ON *.* TO u IDENTIFIED BY "pw\\"x"', "GRANT ALL ON *.* TO u IDENTIFIED BY '***'"],
    ["SET PASSWORD FOR 'u'@'%' = PASSWORD('pw')", "SET PASSWORD FOR 'u'@'%' = PASSWORD('***')"],
    ["SET PASSWORD = 'hash'", "SET PASSWORD = '***'"],
    [
      "CREATE USER u IDENTIFIED VIA ed25519 USING PASSWORD('pw')",
      "CREATE USER u IDENTIFIED VIA ed25519 USING PASSWORD('***')",
    ],
    [
      "CHANGE MASTER TO MASTER_HOST='h', MASTER_PASSWORD='pw'",
      "CHANGE MASTER TO MASTER_HOST='h', MASTER_PASSWORD='***'",
    ],
    [
      "ALTER TABLE t ADD COLUMN password VARCHAR(10) DEFAULT 'x'",
      "ALTER TABLE t ADD COLUMN password VARCHAR(10) DEFAULT 'x'",
    ],
    [
      "CREATE TABLE f (id INT) ENGINE=FEDERATED CONNECTION='mysql://app:S3cret@db.example:3306/shop/t'",
      "CREATE TABLE f (id INT) ENGINE=FEDERATED CONNECTION='mysql://app:***@db.example:3306/shop/t'",
    ],
    [
      "CREATE SERVER s FOREIGN DATA WRAPPER mysql OPTIONS (HOST 'h', USER 'u', PASSWORD 'pw', DATABASE 'd')",
      "CREATE SERVER s FOREIGN DATA WRAPPER mysql OPTIONS (HOST 'h', USER 'u', PASSWORD '***', DATABASE 'd')",
    ],
    [
      "CREATE TABLE u (url VARCHAR(99) DEFAULT 'https://example.com/a')",
      "CREATE TABLE u (url VARCHAR(99) DEFAULT 'https://example.com/a')",
    ],
  ];
  for (const [sql, want] of cases) assert.equal(redactSqlSecrets(sql), want, sql);
});

test('cdc binlog-dump prints QUERY events without the password', () => {
  const entry = {
    position: 4,
    event: {
      type: 'QUERY',
      header: { nextPosition: 100, timestamp: 1, serverId: 1 },
      database: 'mysql',
      query: "CREATE USER 'app'@'%' IDENTIFIED BY 'Tr0ub4dor&3'",
    },
  } as unknown as BinlogFileEntry;
  const line = JSON.stringify(eventToJson(entry));
  assert.doesNotMatch(line, /Tr0ub4dor/);
  assert.match(line, /IDENTIFIED BY '\*\*\*'/);
});

test('schema history stores DDL without passwords (file and DynamoDB stores redact on write)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hist-'));
  try {
    const path = join(dir, 'h.jsonl');
    const history = new FileSchemaHistory({ path, connectorName: 'c' });
    await history.initializeStorage();
    const ddl = "GRANT SELECT ON *.* TO 'app'@'%' IDENTIFIED BY 'Tr0ub4dor&3'";
    await history.record({
      seq: 1,
      position: { file: 'b.000001', pos: 4 },
      ts_ms: 1,
      databaseName: '',
      ddl,
      tableChanges: [],
    });
    await history.close();
    assert.doesNotMatch(readFileSync(path, 'utf8'), /Tr0ub4dor/);
    const [entry] = await new FileSchemaHistory({ path, connectorName: 'c' }).recover();
    assert.equal(entry?.ddl, "GRANT SELECT ON *.* TO 'app'@'%' IDENTIFIED BY '***'");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
