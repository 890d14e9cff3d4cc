// Standard ranking metrics (as in BEIR / pytrec_eval): nDCG@k, recall@k and MRR@k of one ranked list against graded judgements.

/** Relevance judgements of one query: document id → grade (> 0 is relevant). */
export type Judgements = ReadonlyMap<string, number>;

/** nDCG@k with linear gains (rel / log2(rank + 1)), as BEIR reports it; 0 when nothing is relevant. */
export function ndcgAt(ranked: readonly string[], judged: Judgements, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((doc, i) => {
    const grade = judged.get(doc) ?? 0;
    if (grade > 0) dcg += grade / Math.log2(i + 2);
  });
  const ideal = [...judged.values()].filter((g) => g > 0).sort((a, b) => b - a).slice(0, k);
  const idcg = ideal.reduce((sum, grade, i) => sum + grade / Math.log2(i + 2), 0);
  return idcg > 0 ? dcg / idcg : 0;
}

/** Share of the relevant documents found in the top `k`; 0 when nothing is relevant. */
export function recallAt(ranked: readonly string[], judged: Judgements, k: number): number {
  const relevant = [...judged.values()].filter((g) => g > 0).length;
  if (relevant === 0) return 0;
  return ranked.slice(0, k).filter((doc) => (judged.get(doc) ?? 0) > 0).length / relevant;
}

/** 1 / rank of the first relevant document within the top `k`, else 0. */
export function mrrAt(ranked: readonly string[], judged: Judgements, k: number): number {
  const i = ranked.slice(0, k).findIndex((doc) => (judged.get(doc) ?? 0) > 0);
  return i < 0 ? 0 : 1 / (i + 1);
}
