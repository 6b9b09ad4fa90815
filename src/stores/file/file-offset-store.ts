import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
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
    this.last = await this.read();
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
    await atomicWriteFile(probe, '');
    await unlink(probe).catch(() => {});
  }

  async close(): Promise<void> {
    await this.chain;
  }

  private async doCommit(offset: SourceOffset): Promise<void> {
    if (this.last === undefined) this.last = await this.read();
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
    await atomicWriteFile(this.path, `${JSON.stringify(next)}\n`);
    this.last = next;
  }

  private async read(): Promise<OffsetFile | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
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
export async function atomicWriteFile(path: string, data: string): Promise<void> {
  const dir = dirname(path);
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await mkdir(dir, { recursive: true });
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(data, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
    await syncDirectory(dir);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw new OffsetStoreError(`cannot write ${path}: ${errorMessage(err)}`, { cause: err, retriable: true });
  }
}

/** fsync a directory so a rename survives a power cut; some platforms refuse to open directories, which is fine. */
async function syncDirectory(dir: string): Promise<void> {
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Windows and some file systems do not support fsync on directories.
  } finally {
    await fh?.close();
  }
}
