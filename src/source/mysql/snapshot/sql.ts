/** Identifier quoting and small SQL helpers shared by the snapshot readers. */

/** Back-quotes an identifier, doubling embedded back-quotes. */
export function quoteId(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

export function quoteTable(db: string, table: string): string {
  return `${quoteId(db)}.${quoteId(table)}`;
}

/** `lock_wait_timeout` takes whole seconds (minimum 1). */
export function lockWaitSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
