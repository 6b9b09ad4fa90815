import { inspect } from 'node:util';

const MASK = '***';

/**
 * A secret value (password, token). Every way of printing it — `String()`, template literals, `JSON.stringify`,
 * `util.inspect`/console.log — yields `***`; only `reveal()` returns the value, so a leak needs an explicit call.
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  /** The real value; call it only where the secret is handed to a client library. */
  reveal(): string {
    return this.#value;
  }
  /** True when no value is set (e.g. a passwordless account). */
  get isEmpty(): boolean {
    return this.#value.length === 0;
  }
  toString(): string {
    return MASK;
  }
  toJSON(): string {
    return MASK;
  }
  [inspect.custom](): string {
    return MASK;
  }
}

export const REDACTED = MASK;
