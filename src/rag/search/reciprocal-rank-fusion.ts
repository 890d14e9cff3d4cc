// Weighted reciprocal rank fusion: merges ranked lists by Σ weight/(k + rank), so no retriever's raw scores need calibrating.

/** The constant from Cormack, Clarke & Büttcher (2009); it damps the weight of the very first ranks. */
export const RRF_K = 60;

/** One fused item: its key, the fused score, and its 1-based rank in each input list (undefined where absent). */
export interface FusedItem<K> {
  key: K;
  score: number;
  ranks: Array<number | undefined>;
}

/**
 * Fuses ranked lists of keys (best first, duplicates within a list ignored after the first) into one list,
 * best first. List i counts `weights[i]` times (default 1 each). Ties are broken by the best single rank, then
 * by first appearance, so the order is deterministic.
 */
export function reciprocalRankFusion<K>(lists: ReadonlyArray<readonly K[]>, k = RRF_K, weights: readonly number[] = []): FusedItem<K>[] {
  const fused = new Map<K, FusedItem<K> & { order: number }>();
  let order = 0;
  lists.forEach((list, listIndex) => {
    const weight = weights[listIndex] ?? 1;
    list.forEach((key, position) => {
      let item = fused.get(key);
      if (!item) fused.set(key, (item = { key, score: 0, ranks: lists.map(() => undefined), order: order++ }));
      if (item.ranks[listIndex] !== undefined) return;
      item.ranks[listIndex] = position + 1;
      item.score += weight / (k + position + 1);
    });
  });
  const bestRank = (item: FusedItem<K>) => Math.min(...item.ranks.map((r) => r ?? Infinity));
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || bestRank(a) - bestRank(b) || a.order - b.order)
    .map(({ key, score, ranks }) => ({ key, score, ranks }));
}
