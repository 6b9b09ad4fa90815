/** MariaDB binlog compression (log_bin_compress): 1 header byte (0x80 | alg<<4 | n), n-byte BE length, zlib data. */
import { inflateSync } from 'node:zlib';
import { BinlogDecodeError } from './errors.js';

export function mariadbUncompress(data: Buffer, position: number): Buffer {
  if (data.length === 0 || (data[0] & 0x80) === 0) {
    throw new BinlogDecodeError(
      `event at position ${position}: compressed event lacks the compression header byte`,
      position,
    );
  }
  const alg = (data[0] & 0x70) >> 4;
  const lenBytes = data[0] & 0x07;
  if (alg !== 0 || lenBytes < 1 || lenBytes > 4 || data.length < 1 + lenBytes) {
    throw new BinlogDecodeError(
      `event at position ${position}: unsupported MariaDB compression header 0x${data[0].toString(16)} (only zlib is defined)`,
      position,
    );
  }
  const expected = data.readUIntBE(1, lenBytes);
  let out: Buffer;
  try {
    out = inflateSync(data.subarray(1 + lenBytes));
  } catch (err) {
    throw new BinlogDecodeError(
      `event at position ${position}: zlib decompression failed: ${(err as Error).message}`,
      position,
      {
        cause: err,
      },
    );
  }
  if (out.length !== expected) {
    throw new BinlogDecodeError(
      `event at position ${position}: decompressed ${out.length} bytes, header says ${expected}`,
      position,
    );
  }
  return out;
}
