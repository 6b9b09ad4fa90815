/** Did-you-mean suggestions: optimal-string-alignment (Damerau–Levenshtein) distance over candidate names. */

export function editDistance(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  if (n === 0) return m;
  if (m === 0) return n;
  // Three rolling rows are enough for adjacent transpositions.
  let prev2 = new Array<number>(m + 1).fill(0);
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  let cur = new Array<number>(m + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2] + 1);
      cur[j] = v;
    }
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[m];
}

/**
 * The closest candidates to `input` (best first, at most `limit`), or [] when nothing is close enough. The
 * threshold grows with length so long dotted names tolerate a couple of typos but unrelated names don't match.
 */
export function suggest(input: string, candidates: Iterable<string>, limit = 1): string[] {
  const needle = input.toLowerCase();
  const max = Math.max(2, Math.floor(needle.length / 4));
  const scored: { c: string; d: number }[] = [];
  for (const c of new Set(candidates)) {
    const d = editDistance(needle, c.toLowerCase());
    if (d <= max) scored.push({ c, d });
  }
  scored.sort((x, y) => x.d - y.d || x.c.localeCompare(y.c));
  return scored.slice(0, limit).map((s) => s.c);
}
