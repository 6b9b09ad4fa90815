/** Typed errors of the binlog decoder and file reader; every message names the byte position and the reason. */
import { CdcError, type CdcErrorOptions } from '../../../common/errors.js';

/** Malformed or unexpected bytes in a binlog event (or a truncated/corrupt binlog file). */
export class BinlogDecodeError extends CdcError {
  constructor(
    message: string,
    /** Byte position of the event (start of its header) in the binlog, when known. */
    readonly position?: number,
    options: CdcErrorOptions = {},
  ) {
    super('BINLOG_DECODE', message, options);
  }
}

/** The CRC32 footer of an event does not match its bytes: corruption on disk or in transit. */
export class BinlogChecksumError extends CdcError {
  constructor(
    message: string,
    readonly position: number,
    readonly expected: number,
    readonly actual: number,
  ) {
    super('BINLOG_CHECKSUM', message);
  }
}

/** An event type this decoder does not know and that the server did not flag as ignorable. */
export class BinlogUnsupportedEventError extends CdcError {
  constructor(
    message: string,
    readonly typeCode: number,
    readonly position: number,
  ) {
    super('BINLOG_UNSUPPORTED_EVENT', message);
  }
}

/** MariaDB encrypted binlog (START_ENCRYPTION_EVENT): the events that follow cannot be read without the key. */
export class BinlogEncryptedError extends CdcError {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super('BINLOG_ENCRYPTED', message);
  }
}
