import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { errorMessage, OffsetStoreError } from '../../common/errors.js';
import type { SourceOffset } from '../../model/source-offset.js';
import type { OffsetStore } from '../offset-store.js';
import { compareOffsets, describeOffset } from './offset-order.js';

export interface FileOffsetStoreOptions {
  /** Directory that holds one `<connectorName>.offset.json` per connector; created if missing. Ignored when `path` is set. */
  directory?: string;
  /** Explicit file path (config `filename`); overrides `directory`/`connectorName` naming. */
  path?: string;
  /** Connector name; part of the file name, so it must be a safe file name component. */
  connectorName: string;
}

/** What is stored in the file. `seq` counts commits, which makes a replaced file easy to spot when debugging. */
interface OffsetFile {
  connector: string;
  seq: number;
  committedAt: string;
  offset: SourceOffset;
}

/**
 * Offset store for one connector in a local JSON file. Each commit writes a temp file, fsyncs it, renames it over
 * the old file and fsyncs the directory, so a crash leaves either the old or the new offset, never a torn file.
 * The file calls are synchronous: a commit's ~10 async steps each waited for an event-loop turn, and while the
 * source decodes a backlog (microtasks, no turns) the first commit of a stream took 200-460 ms and held the
 * publisher while the queue filled. Synchronously it blocks the loop only for its two fsyncs (a few ms locally).
 */
export class FileOffsetStore implements OffsetStore {
  readonly path: string;
  private readonly connector: string;
  private last: OffsetFile | null | undefined;
  /** Commits are serialised: two concurrent renames could otherwise land out of order. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(options: FileOffsetStoreOptions) {
    this.connector = options.connectorName;
    this.path = resolveStorePath(options, 'offset.json', (m) => new OffsetStoreError(m));
  }

  async load(): Promise<SourceOffset | null> {
    this.last = this.read();
    return this.last?.offset ?? null;
  }

  commit(offset: SourceOffset): Promise<void> {
    const run = this.chain.then(() => this.doCommit(offset));
    this.chain = run.catch(() => {});
    return run;
  }

  /** Writes, syncs and removes a file beside the offset file: the directory exists and accepts our writes. */
  async probe(): Promise<void> {
    const probe = `${this.path}.probe-${process.pid}`;
    atomicWriteFile(probe, '');
    try {
      unlinkSync(probe);
    } catch {
      // Best effort: a left-over probe file is harmless.
    }
  }

  async close(): Promise<void> {
    await this.chain;
  }

  private async doCommit(offset: SourceOffset): Promise<void> {
    if (this.last === undefined) this.last = this.read();
    const prev = this.last;
    if (prev && compareOffsets(offset, prev.offset) < 0) {
      throw new OffsetStoreError(
        `offset moved backwards for connector "${this.connector}": ${describeOffset(offset)} is before the committed ` +
          `${describeOffset(prev.offset)} (${this.path}); refusing to commit. If the source was really rewound, ` +
          `delete the offset file deliberately.`,
      );
    }
    const next: OffsetFile = {
      connector: this.connector,
      seq: (prev?.seq ?? 0) + 1,
      committedAt: new Date().toISOString(),
      offset,
    };
    atomicWriteFile(this.path, `${JSON.stringify(next)}\n`);
    this.last = next;
  }

  private read(): OffsetFile | null {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new OffsetStoreError(`cannot read offset file ${this.path}: ${errorMessage(err)}`, {
        cause: err,
        retriable: true,
      });
    }
    try {
      const parsed = JSON.parse(text) as OffsetFile;
      if (!parsed || typeof parsed.offset?.file !== 'string' || typeof parsed.offset.pos !== 'number') {
        throw new Error('missing offset.file/offset.pos');
      }
      return parsed;
    } catch (err) {
      throw new OffsetStoreError(
        `offset file ${this.path} is corrupt (${errorMessage(err)}); restore it from a backup or remove it to ` +
          `start from scratch`,
        { cause: err },
      );
    }
  }
}

/** `path` when given, else `<directory>/<connectorName>.<suffix>` with a connector name that is safe in a file name. */
export function resolveStorePath(
  options: { path?: string; directory?: string; connectorName: string },
  suffix: string,
  error: (message: string) => Error,
): string {
  if (options.path) return options.path;
  if (!options.directory) throw error('file store needs either `path` or `directory`');
  if (!/^[A-Za-z0-9._-]+$/.test(options.connectorName)) {
    throw error(
      `connector name "${options.connectorName}" is not a safe file name; use letters, digits, '.', '_' or '-', or set an explicit path`,
    );
  }
  return join(options.directory, `${options.connectorName}.${suffix}`);
}

/** Write `data` to `path` atomically and durably: temp file + fsync + rename + fsync of the directory. */
export function atomicWriteFile(path: string, data: string): void {
  const dir = dirname(path);
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(dir, { recursive: true });
    const fd = openSync(tmp, 'w');
    try {
      const bytes = Buffer.from(data, 'utf8');
      for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    syncDirectory(dir);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {
      // The temp file may not exist.
    }
    throw new OffsetStoreError(`cannot write ${path}: ${errorMessage(err)}`, { cause: err, retriable: true });
  }
}

/** fsync a directory so a rename survives a power cut; some platforms refuse to open directories, which is fine. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Windows and some file systems do not support fsync on directories.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
