/**
 * Debezium's file signal channel (`signal.file`): every `signal.poll.interval.ms` the file's JSON lines
 * (`{"id":..,"type":"execute-snapshot","data":{..}}`) are read and the file is emptied, so each signal acts once.
 * For local use: the capture and the sender share a file system.
 */
import { readFile, truncate } from 'node:fs/promises';
import { errorMessage } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { SignalChannel } from './channel.js';
import { type SignalRecord, signalFromJson } from './signal.js';

export interface FileSignalChannelOptions {
  path: string;
  pollIntervalMs: number;
  logger: Logger;
}

export class FileSignalChannel implements SignalChannel {
  readonly name = 'file';
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly opts: FileSignalChannelOptions) {}

  start(deliver: (signal: SignalRecord) => Promise<void>): void {
    const tick = () => {
      this.polling = this.poll(deliver).finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, this.opts.pollIntervalMs);
      });
    };
    tick();
  }

  position(): null {
    return null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
  }

  private async poll(deliver: (signal: SignalRecord) => Promise<void>): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.opts.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        this.opts.logger.warn('cannot read the signal file', { path: this.opts.path, error: errorMessage(err) });
      return;
    }
    if (text.trim() === '') return;
    // Emptied before acting, as Debezium does: a signal is acted on at most once, even across a crash.
    await truncate(this.opts.path, 0);
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const signal = signalFromJson(line, this.name);
      if (!signal) {
        this.opts.logger.warn('skipped a signal line that is not a JSON signal', { path: this.opts.path });
        continue;
      }
      await deliver(signal);
    }
  }
}
