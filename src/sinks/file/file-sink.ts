import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { errorMessage, SinkError } from '../../common/errors.js';
import { recordLine } from '../../model/record-line.js';
import type { SinkRecord } from '../../model/sink-record.js';
import type { Sink } from '../sink.js';

export interface FileSinkOptions {
  /** File to append NDJSON lines to; parent directories are created. */
  path: string;
  /**
   * fsync after every batch, so a resolved `send` means the lines are on disk.
   * @default true
   */
  fsync?: boolean;
  /** Opens the append handle (tests inject write failures such as ENOSPC). @default fs/promises open */
  openFile?: (path: string, flags: 'a') => Promise<AppendHandle>;
}

/** What the sink needs of a file handle. */
export interface AppendHandle {
  writeFile(data: string, encoding: 'utf8'): Promise<void>;
  sync(): Promise<void>;
  truncate(len: number): Promise<void>;
  stat(): Promise<{ size: number }>;
  close(): Promise<void>;
}

/** `sink.type=file`: appends one JSON line per record (see recordLine) to a file. */
export class FileSink implements Sink {
  readonly name = 'file';
  private fh: AppendHandle | null = null;
  /** Bytes of complete lines in the file: where a failed append is cut back to, so a retry starts on a new line. */
  private size = 0;
  /** A failed append could not be cut back yet (e.g. the truncate failed too): cut before the next write. */
  private torn = false;

  constructor(private readonly options: FileSinkOptions) {}

  async start(): Promise<void> {
    try {
      await mkdir(dirname(this.options.path), { recursive: true });
      await cutTornTail(this.options.path);
      this.fh = await (this.options.openFile ?? open)(this.options.path, 'a');
      this.size = (await this.fh.stat()).size;
      this.torn = false;
    } catch (err) {
      throw new SinkError(
        `file sink cannot open ${this.options.path} for appending: ${errorMessage(err)}; check the path and permissions`,
        { cause: err },
      );
    }
  }

  async send(records: SinkRecord[]): Promise<void> {
    if (!this.fh) throw new SinkError('file sink: send() called before start() or after close()');
    if (records.length === 0) return;
    let text = '';
    for (const r of records) text += recordLine(r);
    const fh = this.fh;
    try {
      if (this.torn) {
        await fh.truncate(this.size);
        this.torn = false;
      }
      await fh.writeFile(text, 'utf8');
      if (this.options.fsync ?? true) await fh.sync();
      this.size += Buffer.byteLength(text, 'utf8');
    } catch (err) {
      // A short write (ENOSPC, EIO) leaves part of a line; the retried batch must not be glued onto it.
      this.torn = true;
      await fh
        .truncate(this.size)
        .then(() => {
          this.torn = false;
        })
        .catch(() => {});
      throw new SinkError(`file sink cannot write to ${this.options.path}: ${errorMessage(err)}`, {
        cause: err,
        retriable: true,
      });
    }
  }

  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    await fh?.close();
  }
}

export interface StdoutSinkOptions {
  /** @default process.stdout */
  stream?: Writable | NodeJS.WritableStream;
}

/** Same lines as FileSink, to a writable stream (stdout by default); resolves once the stream accepted the batch. */
export class StdoutSink implements Sink {
  readonly name = 'stdout';
  private readonly stream: Writable | NodeJS.WritableStream;

  constructor(options: StdoutSinkOptions = {}) {
    this.stream = options.stream ?? process.stdout;
  }

  async start(): Promise<void> {}

  async send(records: SinkRecord[]): Promise<void> {
    if (records.length === 0) return;
    let text = '';
    for (const r of records) text += recordLine(r);
    await new Promise<void>((resolve, reject) => {
      this.stream.write(text, (err?: Error | null) =>
        err ? reject(new SinkError(`stdout sink write failed: ${err.message}`, { cause: err })) : resolve(),
      );
    });
  }

  async close(): Promise<void> {}
}

/**
 * A process killed in the middle of a write can leave a partial last line; appending after it would glue the next
 * record onto it. Cut the file back to its last newline (the partial record is re-delivered: its offset was not
 * committed).
 */
async function cutTornTail(path: string): Promise<void> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, 'r+');
  } catch {
    return; // no file yet
  }
  try {
    const { size } = await fh.stat();
    if (size === 0) return;
    const chunk = Buffer.alloc(Math.min(size, 1 << 20));
    let end = size;
    while (end > 0) {
      const len = Math.min(chunk.length, end);
      await fh.read(chunk, 0, len, end - len);
      const nl = chunk.subarray(0, len).lastIndexOf(0x0a);
      if (nl >= 0) {
        const keep = end - len + nl + 1;
        if (keep < size) await fh.truncate(keep);
        return;
      }
      end -= len;
    }
    await fh.truncate(0);
  } finally {
    await fh.close();
  }
}
