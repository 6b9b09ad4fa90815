import type { Connection as CallbackConnection } from 'mysql2';
import type { Connection as PromiseConnection } from 'mysql2/promise';

/**
 * A replication connection source from the capture's promise-connection factory. The replication client drives
 * mysql2's callback connection underneath the promise wrapper (`.connection`, not in mysql2's typings): this is the
 * one place outside the client that knows it.
 */
export function callbackConnection(connect: () => Promise<PromiseConnection>): () => Promise<CallbackConnection> {
  return async () => ((await connect()) as unknown as { connection: CallbackConnection }).connection;
}
