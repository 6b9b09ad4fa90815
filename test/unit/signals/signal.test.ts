/** Debezium signal records from any channel: parsed without throwing, bad ones ignored with the reason. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSignal, signalFromJson, snapshotSignalJson } from '../../../src/signals/signal.js';

const rec = (type: string, data: string | null) => ({ id: 's1', type, data, channel: 'file' });

describe('signals', () => {
  it('execute-snapshot: incremental by default, blocking when asked', () => {
    assert.deepEqual(parseSignal(rec('execute-snapshot', '{"data-collections":["db.t"]}')), {
      action: 'snapshot',
      request: { kind: 'incremental', tables: ['db.t'] },
    });
    assert.deepEqual(parseSignal(rec('execute-snapshot', '{"data-collections":["a.b","c.d"],"type":"BLOCKING"}')), {
      action: 'snapshot',
      request: { kind: 'blocking', tables: ['a.b', 'c.d'] },
    });
  });

  it('bad or unsupported signals are ignored with a reason, never thrown', () => {
    for (const [type, data, reason] of [
      ['log', '{}', /not supported/],
      ['execute-snapshot', '{not json', /not JSON/],
      ['execute-snapshot', '{"data-collections":[]}', /no data-collections/],
      ['execute-snapshot', '{"data-collections":["a.b"],"type":"parallel"}', /'parallel' is not supported/],
      ['execute-snapshot', 'null', /not an object/],
    ] as const) {
      const p = parseSignal(rec(type, data));
      assert.equal(p.action, 'ignore');
      assert.match(p.action === 'ignore' ? p.reason : '', reason);
    }
  });

  it('pause-, resume- and stop-snapshot act on the incremental snapshot (stop: the named tables, or all)', () => {
    assert.deepEqual(parseSignal(rec('pause-snapshot', '{"type":"INCREMENTAL"}')), {
      action: 'control',
      control: { kind: 'pause' },
    });
    assert.deepEqual(parseSignal(rec('resume-snapshot', null)), { action: 'control', control: { kind: 'resume' } });
    assert.deepEqual(parseSignal(rec('stop-snapshot', '{"type":"incremental","data-collections":["db.t"]}')), {
      action: 'control',
      control: { kind: 'stop', tables: ['db.t'] },
    });
    assert.deepEqual(parseSignal(rec('stop-snapshot', '{"type":"incremental"}')), {
      action: 'control',
      control: { kind: 'stop', tables: null },
    });
    const blocking = parseSignal(rec('stop-snapshot', '{"type":"blocking"}'));
    assert.equal(blocking.action, 'ignore');
    assert.match(
      blocking.action === 'ignore' ? blocking.reason : '',
      /stop-snapshot of type 'blocking' .*incremental only/,
    );
  });

  it('file/stream JSON: data as an object or a string; what cdc snapshot writes reads back', () => {
    const line = snapshotSignalJson('id-1', ['db.t'], 'blocking');
    const s = signalFromJson(line, 'kinesis');
    assert.deepEqual(s, {
      id: 'id-1',
      type: 'execute-snapshot',
      data: '{"data-collections":["db.t"],"type":"blocking"}',
      channel: 'kinesis',
    });
    assert.equal(signalFromJson('{"id":"x","type":"execute-snapshot","data":"{}"}', 'file')?.data, '{}');
    assert.equal(signalFromJson('not json', 'file'), null);
    assert.equal(signalFromJson('{"id":"x"}', 'file'), null, 'a type is required');
  });
});
