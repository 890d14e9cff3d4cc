// Benchmark: retrieval quality of vector, BM25 and fused search on every BEIR-format collection we can build (nDCG@10, recall@5).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createLexicalEmbedder } from '../src/rag/embed/lexical-embedder.js';
import { loadBeirCollection } from '../src/rag/search/beir-collection.js';
import { evaluateCollection, indexCollection } from '../src/rag/search/evaluate-collection.js';
import { RETRIEVERS } from '../src/rag/search/retrievers.js';
import { buildBeirSets } from './beir-sets.js';
import { round, type Figure } from './stats.js';

const LABEL = { vector: 'vector', bm25: 'BM25', hybrid: 'fused' } as const;

/**
 * Figures per collection and retriever with the built-in embedder and the default fusion. `weights` (for tuning)
 * evaluates each fusion weight of the vector list instead of the default.
 */
export async function runRetrievalBench(weights: Array<number | undefined> = [undefined]): Promise<Figure[]> {
  const root = await mkdtemp(join(tmpdir(), 'cortex-bench-beir-'));
  const figures: Figure[] = [];
  try {
    const sets = await buildBeirSets(root);
    const embedder = createLexicalEmbedder();
    for (const [name, dir] of Object.entries(sets)) {
      const collection = await loadBeirCollection(dir);
      const index = await indexCollection(collection, embedder);
      for (const weight of weights) {
        const result = await evaluateCollection({ collection, index, embedder, ...(weight === undefined ? {} : { vectorWeight: weight }) });
        const note = `${name}: ${result.documents} documents, ${result.chunks} chunks, ${result.queries} queries, ${embedder.id}, vector weight ${result.vectorWeight}`;
        for (const r of RETRIEVERS) {
          const f = result.figures[r];
          figures.push({ bench: 'retrieval', name: `nDCG@10, ${LABEL[r]}, ${name}`, value: round(f.ndcg10, 3), unit: '', note });
          figures.push({ bench: 'retrieval', name: `recall@5, ${LABEL[r]}, ${name}`, value: round(f.recall5, 3), unit: '', note });
        }
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return figures;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const weights = process.argv.slice(2).map(Number);
  for (const figure of await runRetrievalBench(weights.length ? weights : undefined)) console.log(JSON.stringify(figure));
}
