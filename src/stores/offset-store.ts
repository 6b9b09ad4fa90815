import type { SourceOffset } from '../model/source-offset.js';

/** Where the last committed offset is kept (file | DynamoDB); see model/source-offset.ts for the value. */
export interface OffsetStore {
  /** The last committed offset for this connector, or null on first start. */
  load(): Promise<SourceOffset | null>;
  /** Durably store `offset`. Must never move backwards; implementations reject with OffsetStoreError if it would. */
  commit(offset: SourceOffset): Promise<void>;
  /**
   * Prove that `commit` can succeed (write access, fencing token held) without changing the stored offset; called
   * before anything is published, so a store that cannot commit fails at start-up instead of after a snapshot.
   */
  probe(): Promise<void>;
  close(): Promise<void>;
}
