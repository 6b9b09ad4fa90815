/** Types of scripts/bundle-lambdas.mjs. */
export interface BundleOptions {
  /** @default dist/lambdas */
  outdir?: string;
  /** @default false */
  minify?: boolean;
  /** Handler names (lambdas/<name>.ts); all when empty. */
  names?: string[];
}
/** Bundle handlers; returns the written entry files (`<outdir>/<name>/index.mjs`). */
export function bundleLambdas(options?: BundleOptions): Promise<string[]>;
