/**
 * node:test glue for the harnesses: one server (or stand-in) per test file, started in `before`, stopped in
 * `after`. Call at module top level or inside a `describe`; read the value only inside tests/hooks.
 */
import { after, before } from 'node:test';
import { type AwsStandIn, startDynalite, startKinesalite } from './aws.js';
import { type MariaDbOptions, type MariaDbServer, startMariaDb } from './mariadb.js';

export type Accessor<T> = () => T;

function useResource<T extends { stop(): Promise<void> }>(start: () => Promise<T>, what: string): Accessor<T> {
  let resource: T | undefined;
  before(async () => {
    resource = await start();
  });
  after(async () => {
    await resource?.stop();
  });
  return () => {
    if (!resource) throw new Error(`${what} is not started: use the accessor inside a test or hook, not at load time`);
    return resource;
  };
}

/** A private MariaDB server for this test file (or describe block). */
export function useMariaDb(opts: MariaDbOptions = {}): Accessor<MariaDbServer> {
  return useResource(() => startMariaDb(opts), 'MariaDB');
}

/** An in-memory kinesalite for this test file (or describe block). */
export function useKinesalite(): Accessor<AwsStandIn> {
  return useResource(() => startKinesalite(), 'kinesalite');
}

/** An in-memory dynalite for this test file (or describe block). */
export function useDynalite(): Accessor<AwsStandIn> {
  return useResource(() => startDynalite(), 'dynalite');
}
