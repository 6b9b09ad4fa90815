/**
 * The MySQL capture context: schema changes go through it and the decoder drops what it compiled from the old
 * definitions; the history recorder owns the sequence and stamps the server generation; the server stamps offsets
 * and records and moves to a new generation on a failover only when resuming by GTID.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../../../src/common/logger.js';
import { parseConfig } from '../../../src/config/index.js';
import { SERVER_GENERATION_HEADER } from '../../../src/events/event-id.js';
import { CaptureMetrics } from '../../../src/model/capture-metrics.js';
import { SchemaHistoryMetrics } from '../../../src/model/schema-history-metrics.js';
import { EventType } from '../../../src/source/mysql/binlog/event-types.js';
import { CaptureServer, MySqlCaptureContext } from '../../../src/source/mysql/capture-context.js';
import type { ServerIdentity } from '../../../src/source/mysql/server-identity.js';
import type { ServerInfo } from '../../../src/source/mysql/server-info.js';
import { createTableFilter } from '../../../src/source/mysql/table-filter.js';
import type { SchemaHistory, SchemaHistoryEntry } from '../../../src/stores/schema-history.js';
import { buildEvent, rowsV2Body, tableMapBody } from '../binlog/helpers.js';

const identity: ServerIdentity = {
  flavor: 'mysql',
  key: 'mysql:aaaa',
  serverId: 1,
  uuid: 'aaaa',
  gtidMode: true,
  gtidPurged: '',
  readOnly: false,
};
const info = { flavor: 'mysql', version: '8.0.36', lowerCaseTableNames: 0 } as unknown as ServerInfo;

function setup(stored: SchemaHistoryEntry[] = []) {
  const config = parseConfig({ 'topic.prefix': 'shop', 'database.hostname': 'db.local', 'database.user': 'cdc' });
  const written: SchemaHistoryEntry[] = [];
  const history: SchemaHistory = {
    initializeStorage: async () => {},
    exists: async () => stored.length > 0,
    record: async (e) => void written.push(e),
    recover: async () => stored,
    close: async () => {},
  };
  const server = new CaptureServer(identity, info, 0);
  const context = MySqlCaptureContext.create({
    config,
    logger: silentLogger,
    connect: () => Promise.reject(new Error('no server in unit tests')),
    filter: createTableFilter(config.filters),
    history,
    server,
    metrics: new CaptureMetrics(),
    historyMetrics: new SchemaHistoryMetrics(),
  });
  return { context, server, written };
}

/** A TINYINT of 0xFF in a table map without column metadata: its signedness comes from the schema. */
function decodeTiny(context: MySqlCaptureContext): unknown {
  context.decode(buildEvent(EventType.TABLE_MAP, tableMapBody(7, 'd', 't', [{ type: 1, meta: [] }])));
  const ev = context.decode(buildEvent(EventType.WRITE_ROWS_V2, rowsV2Body(7, 1, [[0x00, 0xff]])));
  assert.ok(ev.type === 'WRITE_ROWS');
  return ev.rows[0][0];
}

describe('MySqlCaptureContext', () => {
  it('a DDL applied through the context makes the decoder recompile the tables it changed', () => {
    const { context } = setup();
    context.applyDdl('CREATE TABLE d.t (v TINYINT)', 'd', { file: 'bin.000001', pos: 4 });
    assert.equal(decodeTiny(context), -1);
    context.applyDdl('ALTER TABLE d.t MODIFY v TINYINT UNSIGNED', 'd', { file: 'bin.000001', pos: 90 });
    assert.equal(decodeTiny(context), 255, 'the same TABLE_MAP bytes decode with the new definition');
  });

  it('the history recorder continues the stored sequence and stamps the server generation', async () => {
    const stored: SchemaHistoryEntry = {
      seq: 41,
      position: { file: 'bin.000002', pos: 120, server_generation: 1 },
      ts_ms: 0,
      databaseName: 'd',
      ddl: 'CREATE TABLE d.t (v INT)',
      tableChanges: [],
    };
    const { context, server, written } = setup([stored]);
    await context.history.recoverAll();
    assert.equal(context.history.sequence, 41);
    assert.deepEqual(context.history.recordedUpTo, { file: 'bin.000002', pos: 120, server_generation: 1 });
    server.generation = 2;
    assert.equal(context.history.next(), 42);
    await context.history.record({ ...stored, seq: 7, position: { file: 'bin.000003', pos: 4 } });
    assert.equal(context.history.sequence, 42);
    assert.equal(written[0].seq, 42, 'the recorder numbers the entry');
    assert.deepEqual(written[0].position, { file: 'bin.000003', pos: 4, server_generation: 2 });
  });
});

describe('CaptureServer', () => {
  it('stamps offsets with its identity and generation, and records only after a failover', async () => {
    const { context, server } = setup();
    const items: unknown[] = [];
    const emit = context.stamping(async (item) => void items.push(item));
    const record = { topic: 't', key: null, value: '{}', sizeBytes: 2 };
    await emit({ record, offset: { file: 'bin.000001', pos: 4, gtids: 'a:1' } });
    assert.deepEqual(items[0], {
      record,
      offset: { file: 'bin.000001', pos: 4, gtids: 'a:1', server_identity: 'mysql:aaaa' },
    });
    server.partialGtids = true;
    server.generation = 1;
    await emit({ record, offset: { file: 'bin.000001', pos: 9, gtids: 'a:1-2' } });
    const second = items[1] as { record: { headers: Record<string, string> }; offset: unknown };
    assert.deepEqual(second.offset, {
      file: 'bin.000001',
      pos: 9,
      server_identity: 'mysql:aaaa',
      server_generation: 1,
    });
    assert.equal(second.record.headers[SERVER_GENERATION_HEADER], '1');
  });

  it('a reconnect to another server is a new generation by GTID, and fatal by file/position', () => {
    const byFile = new CaptureServer(identity, info, 0);
    assert.throws(() => byFile.switchTo('mysql:bbbb', silentLogger), /reconnected to another server/);
    const byGtid = new CaptureServer(identity, info, 0);
    byGtid.resumeByGtid = true;
    byGtid.switchTo('mysql:aaaa', silentLogger);
    assert.equal(byGtid.generation, 0, 'the same server');
    byGtid.switchTo('mysql:bbbb', silentLogger);
    assert.equal(byGtid.generation, 1);
    assert.equal(byGtid.identity.key, 'mysql:bbbb');
  });
});
