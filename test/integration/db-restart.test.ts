/**
 * The database restarts mid-stream (issue 18's adversarial cases that held, kept in the suite): the capture keeps
 * running, reconnects to the restarted server on the same port and data, and goes on from its position in the
 * old binlog file into the new one. Nothing is lost and every key's last event matches the table.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startCapture } from '../../src/cli/commands/run.js';
import { silentLogger } from '../../src/common/logger.js';
import { type MariaDbServer, startMariaDb } from '../harness/mariadb.js';
import { waitFor } from '../harness/wait.js';
import { captureEnv } from './support/capture.js';

type Row = { id: number; v: number };

test('MariaDB restarted mid-stream: the capture reconnects and loses nothing', { timeout: 180_000 }, async () => {
  const datadir = mkdtempSync(join(tmpdir(), 'cdc-restart-'));
  let server: MariaDbServer | null = await startMariaDb({ datadir });
  try {
    const port = server.port;
    // A user of its own: it lives in the datadir, so it survives the restart (the harness renews its own).
    await server.query(`CREATE USER 'cap'@'%' IDENTIFIED BY 'cap-pw'`);
    await server.query(`GRANT SELECT, RELOAD, LOCK TABLES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'cap'@'%'`);
    const name = await server.createDatabase('restart');
    await server.query(`CREATE TABLE ${name}.t (id INT PRIMARY KEY, v INT)`);
    await server.query(
      `INSERT INTO ${name}.t VALUES ${Array.from({ length: 100 }, (_, i) => `(${i + 1}, 0)`).join(',')}`,
    );
    const env = captureEnv(server, name, {
      'database.user': 'cap',
      'database.password': 'cap-pw',
      'errors.retry.delay.initial.ms': '50',
      'errors.retry.delay.max.ms': '500',
    });
    const handle = startCapture(env.config, silentLogger, {});
    const events = () =>
      env
        .lines()
        .filter((l) => l.topic === `it.${name}.t` && l.value !== null)
        .map((l) => l.value as { op: string; before: Row | null; after: Row | null });
    try {
      await waitFor('the snapshot', () => events().length >= 100, 60_000);
      for (let i = 101; i <= 150; i++) await server.query(`INSERT INTO ${name}.t VALUES (${i}, 1)`);
      await server.query(`UPDATE ${name}.t SET v = v + 10 WHERE id <= 20`);
      await waitFor('the changes before the restart', () => events().length >= 170, 60_000);

      await server.stop();
      server = await startMariaDb({ datadir, port });
      for (let i = 151; i <= 200; i++) await server.query(`INSERT INTO ${name}.t VALUES (${i}, 2)`);
      await server.query(`DELETE FROM ${name}.t WHERE id BETWEEN 21 AND 30`);
      await server.query(`UPDATE ${name}.t SET v = v + 100 WHERE id > 140`);
      await waitFor(
        'the changes after the restart',
        () => events().some((e) => e.after?.id === 200 && e.after.v === 102),
        90_000,
      );
    } finally {
      handle.stop();
      await handle.done;
    }
    // Replay the events as a consumer would: the result is the table.
    const state = new Map<number, number>();
    for (const e of events()) {
      if (e.op === 'd' && e.before) state.delete(e.before.id);
      else if (e.after) state.set(e.after.id, e.after.v);
    }
    const rows = await server.query<Row[]>(`SELECT id, v FROM ${name}.t ORDER BY id`);
    assert.deepEqual(
      [...state.entries()].sort((a, b) => a[0] - b[0]),
      rows.map((r) => [r.id, r.v]),
    );
    assert.equal(rows.length, 190);
  } finally {
    await server?.stop();
    rmSync(datadir, { recursive: true, force: true });
  }
});
