import { mkdir, open, readFile, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import { errorMessage, SchemaHistoryError } from '../../common/errors.js';
import { redactSqlSecrets } from '../../common/redact-sql.js';
import { BinlogPosition } from '../../model/binlog-position.js';
import type { SourceOffset } from '../../model/source-offset.js';
import type { SchemaHistory, SchemaHistoryEntry } from '../schema-history.js';
import { resolveStorePath } from './file-offset-store.js';

export interface FileSchemaHistoryOptions {
  /** Directory that holds one `<connectorName>.history.ndjson` per connector; created if missing. Ignored when `path` is set. */
  directory?: string;
  /** Explicit file path (config `filename`); overrides `directory`/`connectorName` naming. */
  path?: string;
  connectorName: string;
}

/**
 * Append-only NDJSON schema history: one SchemaHistoryEntry per line, fsynced per record. A crash mid-append can
 * leave a torn last line; readers ignore it and the next writer cuts it off before appending. A bad line anywhere
 * else is corruption and fails loudly (recovering a schema with a hole in it would decode rows wrongly).
 */
export class FileSchemaHistory implements SchemaHistory {
  readonly path: string;
  private readonly directory: string;
  private tornChecked = false;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(options: FileSchemaHistoryOptions) {
    this.path = resolveStorePath(options, 'history.ndjson', (m) => new SchemaHistoryError(m));
    this.directory = dirname(this.path);
  }

  async initializeStorage(): Promise<void> {
    await mkdir(this.directory, { recursive: true });
  }

  async exists(): Promise<boolean> {
    return (await this.readEntries()).length > 0;
  }

  record(entry: SchemaHistoryEntry): Promise<void> {
    // The history is not a credential store: account statements and CONNECTION strings lose their passwords.
    const redacted = { ...entry, ddl: redactSqlSecrets(entry.ddl) };
    const run = this.chain.then(() => this.append(redacted));
    this.chain = run.catch(() => {});
    return run;
  }

  async recover(upTo?: Pick<SourceOffset, 'file' | 'pos'>): Promise<SchemaHistoryEntry[]> {
    await this.chain;
    const all = await this.readEntries();
    const kept = upTo ? all.filter((e) => BinlogPosition.compare(e.position, upTo) <= 0) : all;
    // Stable sort: entries with equal seq keep file order.
    return kept.sort((a, b) => a.seq - b.seq);
  }

  async close(): Promise<void> {
    await this.chain;
  }

  private async append(entry: SchemaHistoryEntry): Promise<void> {
    try {
      await mkdir(this.directory, { recursive: true });
      if (!this.tornChecked) {
        await this.cutTornTail();
        this.tornChecked = true;
      }
      const fh = await open(this.path, 'a');
      try {
        await fh.writeFile(`${JSON.stringify(entry)}\n`, 'utf8');
        await fh.sync();
      } finally {
        await fh.close();
      }
    } catch (err) {
      throw new SchemaHistoryError(`cannot append to schema history ${this.path}: ${errorMessage(err)}`, {
        cause: err,
        retriable: true,
      });
    }
  }

  /** Drop an incomplete last line left by a crash, so the next entry starts on its own line. */
  private async cutTornTail(): Promise<void> {
    let buf: Buffer;
    try {
      buf = await readFile(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    if (buf.length === 0 || buf[buf.length - 1] === 0x0a) return;
    await truncate(this.path, buf.lastIndexOf(0x0a) + 1);
  }

  private async readEntries(): Promise<SchemaHistoryEntry[]> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new SchemaHistoryError(`cannot read schema history ${this.path}: ${errorMessage(err)}`, {
        cause: err,
        retriable: true,
      });
    }
    const lines = text.split('\n');
    const complete = text.endsWith('\n');
    const out: SchemaHistoryEntry[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (line.trim() === '') continue;
      const isLast = i === lines.length - 1;
      try {
        out.push(JSON.parse(line) as SchemaHistoryEntry);
      } catch (err) {
        // Only an unterminated last line can be a torn write; anything else is real corruption.
        if (isLast && !complete) break;
        throw new SchemaHistoryError(
          `schema history ${this.path} is corrupt at line ${i + 1} (${errorMessage(err)}); restore it from a ` +
            `backup, or delete it and re-snapshot the schema`,
          { cause: err },
        );
      }
    }
    return out;
  }
}
