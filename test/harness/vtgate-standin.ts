/**
 * A VTGate stand-in for tests: a real grpc-js server implementing `/vtgateservice.Vitess/VStream` (and the
 * `Execute` statements `cdc check` sends) from the same vendored Vitess protos the source loads. It keeps, per shard,
 * the table rows and a log of committed transactions with MySQL56-style GTIDs, and serves VEvents shaped like real
 * VTGate's: a copy phase for shards started with an empty GTID (FIELD, BEGIN/ROW/VGTID-with-lastpk/COMMIT batches,
 * COPY_COMPLETED per shard and for the stream), then BEGIN, FIELD, ROW, VGTID, COMMIT per transaction, DDL, HEARTBEAT,
 * and on a reshard either a JOURNAL event that ends the stream (stop_on_reshard) or a VGTID naming the new shards.
 *
 * It is a model, not Vitess: no vindexes (the test chooses each row's shard), one keyspace, primary keys are the
 * first column; what it verifies is the client's handling of the protocol, not VTGate's own semantics.
 */
import * as grpc from '@grpc/grpc-js';
import type { ProtoField, ProtoShardGtid, ProtoTableLastPk } from '../../src/source/vitess/vgtid.js';
import { vitessGrpcPackage } from '../../src/source/vitess/vtgate-client.js';

export type Cell = string | null;

export interface StandinTable {
  name: string;
  /** query.Field list; the first column is the primary key. */
  fields: ProtoField[];
}

export interface RowChangeSpec {
  table: string;
  before?: Cell[];
  after?: Cell[];
}

interface LoggedTx {
  n: number;
  timestamp: number;
  changes?: RowChangeSpec[];
  ddl?: string;
}

interface Shard {
  name: string;
  uuid: string;
  /** Last committed transaction number (GTIDs are `MySQL56/<uuid>:1-<n>`). */
  n: number;
  log: LoggedTx[];
  /** table → pk → row. */
  rows: Map<string, Map<string, Cell[]>>;
  retired: boolean;
}

interface Subscriber {
  shards: Map<string, number>;
  call: grpc.ServerWritableStream<unknown, unknown>;
  stopOnReshard: boolean;
  wake(): void;
}

const gtidOf = (s: Shard, n: number) => `MySQL56/${s.uuid}:1-${n}`;

function positionOf(gtid: string): number {
  const m = /-(\d+)$/.exec(gtid) ?? /:(\d+)$/.exec(gtid);
  if (!m) throw new Error(`unparseable gtid ${gtid}`);
  return Number(m[1]);
}

function encodeRow(cells: readonly Cell[]): { lengths: string[]; values: Buffer } {
  const parts = cells.map((c) => (c === null ? null : Buffer.from(c, 'utf8')));
  return {
    lengths: parts.map((p) => (p === null ? '-1' : String(p.length))),
    values: Buffer.concat(parts.flatMap((p) => (p === null ? [] : [p]))),
  };
}

/** End a server stream with a gRPC status, as VTGate does for bad requests. */
function fail(call: grpc.ServerWritableStream<unknown, unknown>, code: grpc.status, details: string): void {
  call.emit('error', Object.assign(new Error(details), { code, details }));
}

function uuidFor(name: string): string {
  const hex = Buffer.from(name.padEnd(16, '_').slice(0, 16)).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export interface StandinOptions {
  keyspace: string;
  shards: string[];
  tables: StandinTable[];
  /** Static auth: when set, calls must carry these `username`/`password` metadata. */
  credentials?: { user: string; password: string };
  /** Tablet types reported as serving by SHOW VITESS_TABLETS (default PRIMARY and REPLICA). */
  servingTabletTypes?: string[];
}

export class VtgateStandin {
  private server = new grpc.Server();
  private readonly shardMap = new Map<string, Shard>();
  private readonly tables = new Map<string, StandinTable>();
  private readonly subscribers = new Set<Subscriber>();
  port = 0;
  /** VStream requests received (for assertions on the requested VGTID). */
  readonly requests: Array<{ vgtid: ProtoShardGtid[]; tabletType: string; flags: Record<string, unknown> }> = [];

  constructor(private readonly options: StandinOptions) {
    for (const t of options.tables) this.tables.set(t.name, t);
    for (const s of options.shards) this.addShard(s);
    this.addService();
  }

  private addService(): void {
    const pkg = vitessGrpcPackage() as unknown as {
      vtgateservice: { Vitess: { service: grpc.ServiceDefinition } };
    };
    this.server.addService(pkg.vtgateservice.Vitess.service, {
      VStream: (call: grpc.ServerWritableStream<unknown, unknown>) => void this.vstream(call),
      Execute: (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) =>
        this.execute(call, cb),
    } as unknown as grpc.UntypedServiceImplementation);
  }

  async start(port = 0): Promise<number> {
    this.port = await new Promise<number>((res, rej) =>
      this.server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, bound) =>
        err ? rej(err) : res(bound),
      ),
    );
    return this.port;
  }

  /** A VTGate outage: open streams break (UNAVAILABLE for the client), then it serves again on the same port. */
  async restart(): Promise<void> {
    for (const s of this.subscribers) s.call.destroy(new Error('vtgate restarting'));
    this.subscribers.clear();
    this.server.forceShutdown();
    this.server = new grpc.Server();
    this.addService();
    await this.start(this.port);
  }

  async stop(): Promise<void> {
    for (const s of this.subscribers) s.call.end();
    this.subscribers.clear();
    await new Promise<void>((res) => this.server.tryShutdown(() => res()));
    this.server.forceShutdown();
  }

  get shards(): string[] {
    return [...this.shardMap.values()].filter((s) => !s.retired).map((s) => s.name);
  }

  /** Current GTID of a shard. */
  gtid(shard: string): string {
    const s = this.shard(shard);
    return gtidOf(s, s.n);
  }

  private addShard(name: string): Shard {
    const s: Shard = { name, uuid: uuidFor(name), n: 0, log: [], rows: new Map(), retired: false };
    for (const t of this.tables.keys()) s.rows.set(t, new Map());
    this.shardMap.set(name, s);
    return s;
  }

  private shard(name: string): Shard {
    const s = this.shardMap.get(name);
    if (!s) throw new Error(`no shard ${name}`);
    return s;
  }

  /** Commit one transaction of row changes on a shard; open streams receive it. */
  commit(shard: string, changes: RowChangeSpec[]): string {
    const s = this.shard(shard);
    for (const c of changes) {
      const rows = s.rows.get(c.table);
      if (!rows) throw new Error(`no table ${c.table}`);
      if (c.before) rows.delete(String(c.before[0]));
      if (c.after) rows.set(String(c.after[0]), c.after);
    }
    s.n++;
    s.log.push({ n: s.n, timestamp: Math.floor(Date.now() / 1000), changes });
    this.wakeAll();
    return gtidOf(s, s.n);
  }

  /** A DDL on every shard (Vitess applies schema changes per shard). */
  ddl(statement: string): void {
    for (const s of this.shardMap.values()) {
      if (s.retired) continue;
      s.n++;
      s.log.push({ n: s.n, timestamp: Math.floor(Date.now() / 1000), ddl: statement });
    }
    this.wakeAll();
  }

  /**
   * Reshard: the rows of `from` move to the new shards `to` (chosen per row by `route`); streams on the old shards
   * get a JOURNAL (stop_on_reshard) or a VGTID naming the new shards at their start position.
   */
  reshard(from: string[], to: string[], route: (table: string, row: Cell[]) => string): void {
    const fresh = to.map((n) => this.addShard(n));
    for (const f of from) {
      const old = this.shard(f);
      for (const [table, rows] of old.rows)
        for (const row of rows.values()) this.shard(route(table, row)).rows.get(table)?.set(String(row[0]), row);
      old.retired = true;
    }
    const shardGtids = fresh.map((s) => ({ keyspace: this.options.keyspace, shard: s.name, gtid: gtidOf(s, s.n) }));
    for (const sub of [...this.subscribers]) {
      if (!from.some((f) => sub.shards.has(f))) continue;
      if (sub.stopOnReshard) {
        this.send(sub.call, [
          {
            type: 'JOURNAL',
            keyspace: this.options.keyspace,
            journal: {
              id: '1',
              migration_type: 'SHARDS',
              tables: [],
              shard_gtids: shardGtids,
              participants: from.map((shard) => ({ keyspace: this.options.keyspace, shard })),
            },
          },
        ]);
        this.subscribers.delete(sub);
        sub.call.end();
      } else {
        for (const f of from) sub.shards.delete(f);
        for (const s of fresh) sub.shards.set(s.name, s.n);
        this.send(sub.call, [this.vgtidEvent(sub.shards)]);
      }
    }
  }

  private wakeAll(): void {
    for (const s of this.subscribers) s.wake();
  }

  private authorized(md: grpc.Metadata): boolean {
    const c = this.options.credentials;
    if (!c) return true;
    return md.get('username')[0] === c.user && md.get('password')[0] === c.password;
  }

  private send(call: grpc.ServerWritableStream<unknown, unknown>, events: object[]): boolean {
    return call.write({ events });
  }

  private vgtidEvent(positions: Map<string, number>, copy?: Map<string, ProtoTableLastPk[]>): object {
    return {
      type: 'VGTID',
      vgtid: {
        shard_gtids: [...positions].map(([shard, n]) => ({
          keyspace: this.options.keyspace,
          shard,
          gtid: gtidOf(this.shard(shard), n),
          // A copy: grpc-js serialises when the stream drains, after the copy loop has moved on.
          table_p_ks: [...(copy?.get(shard) ?? [])],
        })),
      },
    };
  }

  private fieldEvent(shard: string, table: StandinTable): object {
    const ks = this.options.keyspace;
    return {
      type: 'FIELD',
      keyspace: ks,
      shard,
      field_event: { table_name: `${ks}.${table.name}`, keyspace: ks, shard, fields: table.fields },
    };
  }

  private async vstream(call: grpc.ServerWritableStream<unknown, unknown>): Promise<void> {
    if (!this.authorized(call.metadata)) {
      fail(call, grpc.status.UNAUTHENTICATED, 'invalid credentials');
      return;
    }
    const req = call.request as {
      tablet_type: string;
      vgtid: { shard_gtids: ProtoShardGtid[] };
      flags: { heartbeat_interval?: number; stop_on_reshard?: boolean };
    };
    this.requests.push({ vgtid: req.vgtid.shard_gtids, tabletType: req.tablet_type, flags: req.flags });
    const ks = this.options.keyspace;
    const start: ProtoShardGtid[] = [];
    for (const sg of req.vgtid.shard_gtids) {
      if (sg.keyspace !== ks) {
        fail(call, grpc.status.INVALID_ARGUMENT, `keyspace ${sg.keyspace} not found`);
        return;
      }
      if (sg.shard === '') {
        if (sg.gtid !== 'current' && sg.gtid !== '') {
          fail(
            call,
            grpc.status.INVALID_ARGUMENT,
            "if shards are unspecified, the Gtid value must be 'current' or empty",
          );
          return;
        }
        for (const s of this.shards) start.push({ ...sg, shard: s });
      } else if (!this.shardMap.has(sg.shard) || this.shard(sg.shard).retired) {
        fail(call, grpc.status.INVALID_ARGUMENT, `shard ${sg.shard} not serving`);
        return;
      } else start.push(sg);
    }
    let closed = false;
    call.on('cancelled', () => {
      closed = true;
    });
    call.on('close', () => {
      closed = true;
    });
    const positions = new Map<string, number>();
    const copies = new Map<string, ProtoTableLastPk[]>();
    for (const sg of start) {
      const s = this.shard(sg.shard);
      if (sg.gtid === 'current') positions.set(s.name, s.n);
      else if (sg.gtid === '') {
        positions.set(s.name, s.n);
        copies.set(
          s.name,
          [...this.tables.keys()].map((t) => ({ table_name: t, lastpk: null })),
        );
      } else {
        positions.set(s.name, positionOf(sg.gtid));
        if (sg.table_p_ks && sg.table_p_ks.length > 0) copies.set(s.name, sg.table_p_ks);
      }
    }
    if (start.some((sg) => sg.gtid === 'current')) this.send(call, [this.vgtidEvent(positions), { type: 'OTHER' }]);

    // Copy phase: each shard's tables, in batches of two rows, each batch carrying the copy progress.
    if (copies.size > 0) {
      for (const [shard, pending] of copies) {
        while (pending.length > 0 && !closed) {
          const todo = pending[0];
          const table = this.tables.get(todo.table_name) as StandinTable;
          const last = todo.lastpk?.rows?.[0] ? Number(Buffer.from(todo.lastpk.rows[0].values).toString()) : null;
          const rows = [...(this.shard(shard).rows.get(table.name)?.values() ?? [])]
            .filter((r) => last === null || Number(r[0]) > last)
            .sort((a, b) => Number(a[0]) - Number(b[0]));
          this.send(call, [this.fieldEvent(shard, table)]);
          for (let i = 0; i < rows.length && !closed; i += 2) {
            const batch = rows.slice(i, i + 2);
            const lastRow = batch[batch.length - 1];
            pending[0] = {
              table_name: table.name,
              lastpk: { fields: [table.fields[0]], rows: [encodeRow([lastRow[0]])] },
            };
            const ok = this.send(call, [
              { type: 'BEGIN' },
              ...batch.map((r) => ({
                type: 'ROW',
                keyspace: ks,
                shard,
                timestamp: String(Math.floor(Date.now() / 1000)),
                row_event: {
                  table_name: `${ks}.${table.name}`,
                  keyspace: ks,
                  shard,
                  row_changes: [{ after: encodeRow(r) }],
                },
              })),
              this.vgtidEvent(positions, copies),
              { type: 'COMMIT' },
            ]);
            if (!ok) await new Promise((r) => call.once('drain', r));
          }
          pending.shift();
        }
        copies.delete(shard);
        this.send(call, [this.vgtidEvent(positions, copies), { type: 'COPY_COMPLETED', keyspace: ks, shard }]);
      }
      this.send(call, [{ type: 'COPY_COMPLETED' }]);
    }

    // Streaming: replay each shard's log from its position, then wait for more.
    const sub: Subscriber = {
      shards: positions,
      call,
      stopOnReshard: req.flags.stop_on_reshard === true,
      wake: () => {},
    };
    this.subscribers.add(sub);
    const hb = req.flags.heartbeat_interval
      ? setInterval(
          () => this.send(call, [{ type: 'HEARTBEAT', timestamp: String(Math.floor(Date.now() / 1000)) }]),
          req.flags.heartbeat_interval * 1000,
        )
      : null;
    const seenFields = new Set<string>();
    try {
      while (!closed && this.subscribers.has(sub)) {
        let sent = false;
        for (const [shardName, n] of sub.shards) {
          const s = this.shard(shardName);
          const tx = s.log.find((t) => t.n === n + 1);
          if (!tx) continue;
          sub.shards.set(shardName, tx.n);
          sent = true;
          const ts = String(tx.timestamp);
          if (tx.ddl !== undefined) {
            for (const k of [...seenFields]) if (k.startsWith(`${shardName}/`)) seenFields.delete(k);
            this.send(call, [
              { type: 'GTID', gtid: gtidOf(s, tx.n) },
              { type: 'DDL', keyspace: ks, shard: shardName, statement: tx.ddl, timestamp: ts },
              this.vgtidEvent(sub.shards),
            ]);
            continue;
          }
          const events: object[] = [{ type: 'BEGIN', timestamp: ts }];
          for (const c of tx.changes ?? []) {
            const key = `${shardName}/${c.table}`;
            if (!seenFields.has(key)) {
              seenFields.add(key);
              events.push(this.fieldEvent(shardName, this.tables.get(c.table) as StandinTable));
            }
            events.push({
              type: 'ROW',
              keyspace: ks,
              shard: shardName,
              timestamp: ts,
              row_event: {
                table_name: `${ks}.${c.table}`,
                keyspace: ks,
                shard: shardName,
                row_changes: [
                  { before: c.before ? encodeRow(c.before) : null, after: c.after ? encodeRow(c.after) : null },
                ],
              },
            });
          }
          events.push(this.vgtidEvent(sub.shards), { type: 'COMMIT', timestamp: ts });
          if (!this.send(call, events)) await new Promise((r) => call.once('drain', r));
        }
        if (!sent)
          await new Promise<void>((r) => {
            sub.wake = r;
            setTimeout(r, 200);
          });
      }
    } finally {
      if (hb) clearInterval(hb);
      this.subscribers.delete(sub);
    }
  }

  private execute(call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>): void {
    if (!this.authorized(call.metadata)) {
      cb({ code: grpc.status.UNAUTHENTICATED, details: 'invalid credentials' });
      return;
    }
    const sql = (call.request as { query: { sql: string } }).query.sql.trim().toLowerCase();
    const result = this.showResult(sql);
    cb(null, result ? { result } : { error: { code: 'INVALID_ARGUMENT', message: `stand-in does not run: ${sql}` } });
  }

  /** The few SHOW statements of `cdc check`, as VTGate answers them. */
  private showResult(sql: string): object | null {
    const text = (cols: string[], rows: string[][]) => ({
      fields: cols.map((name) => ({ name, type: 'VARCHAR' })),
      rows: rows.map((r) => encodeRow(r)),
    });
    const ks = this.options.keyspace;
    if (sql === 'show keyspaces') return text(['Database'], [[ks]]);
    if (sql === 'show vitess_shards')
      return text(
        ['Shards'],
        this.shards.map((s) => [`${ks}/${s}`]),
      );
    if (sql === 'show vitess_tablets') {
      const types = this.options.servingTabletTypes ?? ['PRIMARY', 'REPLICA'];
      const rows = this.shards.flatMap((s, i) =>
        types.map((t, j) => ['zone1', ks, s, t, 'SERVING', `zone1-${100 * (i + 1) + j}`, 'localhost', '']),
      );
      return text(
        ['Cell', 'Keyspace', 'Shard', 'TabletType', 'State', 'Alias', 'Hostname', 'PrimaryTermStartTime'],
        rows,
      );
    }
    return null;
  }
}
