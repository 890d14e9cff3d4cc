// `cortex eval-retrieval DIR`: scores vector, BM25 and fused search with the profile's settings on a BEIR-format folder.
import { resolve } from 'node:path';
import type { LoadedConfig } from '../config/load-config.js';
import { profileEmbedder } from '../rag/index-folder.js';
import { UsageError } from '../errors.js';
import { BeirFormatError, loadBeirCollection } from '../rag/search/beir-collection.js';
import { type CollectionEvaluation, evaluateCollection, indexCollection } from '../rag/search/evaluate-collection.js';
import { RETRIEVERS } from '../rag/search/retrievers.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';

const LABELS = { vector: 'vector', bm25: 'BM25', hybrid: 'fused' } as const;

/** The figures as a fixed-width table, one row per retriever. */
function formatEvaluation(dir: string, result: CollectionEvaluation): string[] {
  const cell = (x: number) => x.toFixed(3).padStart(8);
  const lines = [
    `${dir}: ${result.documents} documents (${result.chunks} chunks), ${result.queries} judged queries; embedder ${result.embedder}, vector weight ${result.vectorWeight}`,
    `${'retriever'.padEnd(10)}${'nDCG@10'.padStart(8)}${'R@5'.padStart(8)}${'R@100'.padStart(8)}${'MRR@10'.padStart(8)}${'ms/query'.padStart(10)}${'p95 ms'.padStart(8)}`,
  ];
  for (const r of RETRIEVERS) {
    const f = result.figures[r];
    lines.push(`${LABELS[r].padEnd(10)}${cell(f.ndcg10)}${cell(f.recall5)}${cell(f.recall100)}${cell(f.mrr10)}${f.latencyMs.median.toFixed(2).padStart(10)}${f.latencyMs.p95.toFixed(2).padStart(8)}`);
  }
  return lines;
}

/**
 * Loads the collection, chunks and embeds its corpus in memory with the profile's embedder (`llm.embedding`) and
 * structural chunking, and scores every judged query with the profile's fusion weight (`rag.vector_weight`).
 * Nothing is written to the documents index.
 * @throws BeirFormatError for a malformed folder; ConfigError / LLM errors from the embedder.
 */
export async function evalRetrievalCommand(config: LoadedConfig, dir: string, out: Output): Promise<number> {
  const folder = resolve(dir);
  const collection = await loadBeirCollection(folder).catch((err: unknown) => {
    // The folder was the user's to give: one that is missing or not a BEIR collection is bad usage.
    if (err instanceof BeirFormatError) throw new UsageError(err.message, { cause: err });
    throw err;
  });
  const embedder = await profileEmbedder(config, process.env);
  if (config.profile.rag.chunking === 'semantic') out.info('rag.chunking is semantic; eval-retrieval chunks by structure (no LLM calls)');
  out.info(`embedding ${collection.corpus.length} documents with ${embedder.id}…`);
  const index = await indexCollection(collection, embedder);
  const weight = config.profile.rag.vector_weight;
  const result = await evaluateCollection({ collection, index, embedder, ...(weight === undefined ? {} : { vectorWeight: weight }) });
  if (out.json) {
    const { perQuery: _perQuery, ...summary } = result;
    out.result({ status: 'ok', collection: folder, ...summary, figures: Object.fromEntries(RETRIEVERS.map((r) => [LABELS[r], result.figures[r]])) });
  } else {
    for (const line of formatEvaluation(folder, result)) out.line(line);
  }
  return EXIT.ok;
}
