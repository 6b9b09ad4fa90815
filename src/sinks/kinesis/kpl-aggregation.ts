/**
 * KPL aggregated-record format (awslabs amazon-kinesis-producer `aggregation-format.md`):
 *
 *   magic `f3 89 9a c2` ‖ protobuf AggregatedRecord ‖ MD5(protobuf bytes)
 *
 *   message AggregatedRecord { repeated string partition_key_table = 1; repeated string explicit_hash_key_table = 2;
 *                              repeated Record records = 3; }
 *   message Record { required uint64 partition_key_index = 1; optional uint64 explicit_hash_key_index = 2;
 *                    required bytes data = 3; repeated Tag tags = 4; }
 *   message Tag    { required string key = 1; optional string value = 2; }
 *
 * Hand-written encoder/decoder: the schema is tiny and fixed, so a protobuf runtime is not worth the dependency.
 * The encoder tracks the exact encoded size as records are added, so callers can keep aggregates under the Kinesis
 * record limit without encoding twice.
 */
import { createHash } from 'node:crypto';

export const KPL_MAGIC = Buffer.from([0xf3, 0x89, 0x9a, 0xc2]);
const DIGEST_BYTES = 16;

/** Bytes of a protobuf varint. Values here stay below 2^53 (lengths, indices). */
export function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

function writeVarint(buf: Buffer, offset: number, n: number): number {
  while (n >= 0x80) {
    buf[offset++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[offset++] = n;
  return offset;
}

/** Size of a length-delimited field (1-byte tag for field numbers < 16). */
function lenFieldSize(len: number): number {
  return 1 + varintSize(len) + len;
}

/** The explicit hash key Kinesis derives from a partition key: MD5 as an unsigned 128-bit big-endian integer. */
export function partitionKeyHash(partitionKey: string): bigint {
  return BigInt(`0x${createHash('md5').update(partitionKey, 'utf8').digest('hex')}`);
}

export interface UserRecord {
  partitionKey: string;
  explicitHashKey?: string;
  data: Buffer;
}

/**
 * Builds one aggregated record. Partition keys (and explicit hash keys) are de-duplicated into the tables, so many
 * records of the same key cost one table entry. Records keep insertion order, which is the order consumers see.
 */
export class AggregateBuilder {
  private readonly pkIndex = new Map<string, number>();
  private readonly ehkIndex = new Map<string, number>();
  private readonly pks: Buffer[] = [];
  private readonly ehks: Buffer[] = [];
  private readonly records: Array<{ pk: number; ehk: number | undefined; data: Buffer; size: number }> = [];
  private protoSize = 0;

  get count(): number {
    return this.records.length;
  }

  /** Size in bytes of the full aggregated blob (magic + protobuf + MD5) as it stands. */
  get size(): number {
    return KPL_MAGIC.length + this.protoSize + DIGEST_BYTES;
  }

  /** Size the blob would have after adding `record`. */
  sizeWith(record: UserRecord): number {
    return this.size + this.growth(record).total;
  }

  add(record: UserRecord): void {
    const g = this.growth(record);
    let pk = this.pkIndex.get(record.partitionKey);
    if (pk === undefined) {
      pk = this.pks.length;
      this.pks.push(Buffer.from(record.partitionKey, 'utf8'));
      this.pkIndex.set(record.partitionKey, pk);
    }
    let ehk: number | undefined;
    if (record.explicitHashKey !== undefined) {
      ehk = this.ehkIndex.get(record.explicitHashKey);
      if (ehk === undefined) {
        ehk = this.ehks.length;
        this.ehks.push(Buffer.from(record.explicitHashKey, 'utf8'));
        this.ehkIndex.set(record.explicitHashKey, ehk);
      }
    }
    this.records.push({ pk, ehk, data: record.data, size: g.recordBody });
    this.protoSize += g.total;
  }

  private growth(record: UserRecord): { total: number; recordBody: number } {
    let total = 0;
    const pk = this.pkIndex.get(record.partitionKey);
    const pkIdx = pk ?? this.pks.length;
    if (pk === undefined) total += lenFieldSize(Buffer.byteLength(record.partitionKey, 'utf8'));
    let ehkIdx: number | undefined;
    if (record.explicitHashKey !== undefined) {
      const ehk = this.ehkIndex.get(record.explicitHashKey);
      ehkIdx = ehk ?? this.ehks.length;
      if (ehk === undefined) total += lenFieldSize(Buffer.byteLength(record.explicitHashKey, 'utf8'));
    }
    const recordBody =
      1 + varintSize(pkIdx) + (ehkIdx === undefined ? 0 : 1 + varintSize(ehkIdx)) + lenFieldSize(record.data.length);
    total += lenFieldSize(recordBody);
    return { total, recordBody };
  }

  /** Encode magic ‖ protobuf ‖ MD5(protobuf). */
  build(): Buffer {
    const out = Buffer.allocUnsafe(this.size);
    KPL_MAGIC.copy(out, 0);
    let o = KPL_MAGIC.length;
    for (const pk of this.pks) {
      out[o++] = (1 << 3) | 2;
      o = writeVarint(out, o, pk.length);
      o += pk.copy(out, o);
    }
    for (const ehk of this.ehks) {
      out[o++] = (2 << 3) | 2;
      o = writeVarint(out, o, ehk.length);
      o += ehk.copy(out, o);
    }
    for (const r of this.records) {
      out[o++] = (3 << 3) | 2;
      o = writeVarint(out, o, r.size);
      out[o++] = (1 << 3) | 0;
      o = writeVarint(out, o, r.pk);
      if (r.ehk !== undefined) {
        out[o++] = (2 << 3) | 0;
        o = writeVarint(out, o, r.ehk);
      }
      out[o++] = (3 << 3) | 2;
      o = writeVarint(out, o, r.data.length);
      o += r.data.copy(out, o);
    }
    const digest = createHash('md5').update(out.subarray(KPL_MAGIC.length, o)).digest();
    digest.copy(out, o);
    if (o + DIGEST_BYTES !== out.length)
      throw new Error(`KPL encoder size mismatch: ${o + DIGEST_BYTES} != ${out.length}`);
    return out;
  }
}

/** Encode `records` as one aggregated blob (convenience for tests and small producers). */
export function aggregate(records: UserRecord[]): Buffer {
  const b = new AggregateBuilder();
  for (const r of records) b.add(r);
  return b.build();
}

export class KplDecodeError extends Error {
  override name = 'KplDecodeError';
}

/** True when `data` starts with the KPL magic and its trailing MD5 matches the protobuf bytes. */
export function isAggregated(data: Uint8Array): boolean {
  if (data.length < KPL_MAGIC.length + DIGEST_BYTES) return false;
  for (let i = 0; i < KPL_MAGIC.length; i++) if (data[i] !== KPL_MAGIC[i]) return false;
  const proto = data.subarray(KPL_MAGIC.length, data.length - DIGEST_BYTES);
  const digest = createHash('md5').update(proto).digest();
  return digest.equals(data.subarray(data.length - DIGEST_BYTES));
}

/**
 * Split one Kinesis record into its user records. Records that are not aggregated (no magic, or an MD5 mismatch, as
 * the KCL does) come back unchanged as a single user record. A valid checksum over undecodable protobuf throws.
 */
export function deaggregate(record: {
  partitionKey: string;
  explicitHashKey?: string;
  data: Uint8Array;
}): UserRecord[] {
  const data = Buffer.from(record.data.buffer, record.data.byteOffset, record.data.byteLength);
  if (!isAggregated(data)) {
    return [
      {
        partitionKey: record.partitionKey,
        ...(record.explicitHashKey === undefined ? {} : { explicitHashKey: record.explicitHashKey }),
        data,
      },
    ];
  }
  const proto = data.subarray(KPL_MAGIC.length, data.length - DIGEST_BYTES);
  const pks: string[] = [];
  const ehks: string[] = [];
  const raw: Array<{ pk: number; ehk: number | undefined; data: Buffer }> = [];
  const r = new Reader(proto);
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === 2) pks.push(r.bytes().toString('utf8'));
    else if (field === 2 && wire === 2) ehks.push(r.bytes().toString('utf8'));
    else if (field === 3 && wire === 2) raw.push(decodeRecord(r.bytes()));
    else r.skip(wire);
  }
  return raw.map((u, i) => {
    const partitionKey = pks[u.pk];
    if (partitionKey === undefined)
      throw new KplDecodeError(`user record ${i}: partition key index ${u.pk} out of range`);
    let explicitHashKey: string | undefined;
    if (u.ehk !== undefined) {
      explicitHashKey = ehks[u.ehk];
      if (explicitHashKey === undefined) {
        throw new KplDecodeError(`user record ${i}: explicit hash key index ${u.ehk} out of range`);
      }
    }
    return explicitHashKey === undefined
      ? { partitionKey, data: u.data }
      : { partitionKey, explicitHashKey, data: u.data };
  });
}

function decodeRecord(buf: Buffer): { pk: number; ehk: number | undefined; data: Buffer } {
  const r = new Reader(buf);
  let pk: number | undefined;
  let ehk: number | undefined;
  let data: Buffer | undefined;
  while (!r.done) {
    const [field, wire] = r.tag();
    if (field === 1 && wire === 0) pk = r.varint();
    else if (field === 2 && wire === 0) ehk = r.varint();
    else if (field === 3 && wire === 2) data = r.bytes();
    else r.skip(wire); // tags (field 4) and unknown fields
  }
  if (pk === undefined || data === undefined) {
    throw new KplDecodeError('aggregated user record lacks the required partition_key_index or data');
  }
  return { pk, ehk, data };
}

class Reader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new KplDecodeError('truncated varint');
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    throw new KplDecodeError('varint too long');
  }
  tag(): [number, number] {
    const t = this.varint();
    return [Math.floor(t / 8), t & 7];
  }
  bytes(): Buffer {
    const len = this.varint();
    if (this.pos + len > this.buf.length) throw new KplDecodeError('length-delimited field overruns the record');
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new KplDecodeError(`unsupported protobuf wire type ${wire}`);
    if (this.pos > this.buf.length) throw new KplDecodeError('field overruns the record');
  }
}
