/**
 * Scores of different kinds on one scale: each value's rank among the others. A brief's word match
 * (BM25, unbounded, its spread set by the brief's length) and its closeness by meaning (a cosine
 * whose spread differs from episode to episode) are blended as ranks, so that neither's scale
 * decides the blend (Borda-style rank fusion).
 */

/** Each value's rank among the others, 0 (the lowest) to 1 (the highest); ties share their mean rank. */
export function rankNormal(values: number[]): number[] {
  const n = values.length;
  if (n < 2) return values.map(() => 1);
  const order = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(n).fill(0);
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && order[j + 1]![0] === order[i]![0]) j++;
    for (let k = i; k <= j; k++) out[order[k]![1]] = (i + j) / 2 / (n - 1);
    i = j + 1;
  }
  return out;
}
