/** PEM text given inline (`-----BEGIN ...-----`) rather than as the path of a PEM file (TLS options). */
export function isInlinePem(value: string): boolean {
  return /-----BEGIN [A-Z0-9 ]+-----/.test(value);
}
