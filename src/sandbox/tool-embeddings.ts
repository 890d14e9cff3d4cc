// Tool search with an embedding model: the word ranking fused with embedding similarity by reciprocal rank fusion;
// the tools' vectors are computed once per catalogue (keyed by a hash of the tools and the model) and kept.
import { createHash } from 'node:crypto';
import type { ToolInfo } from '../mcp/types.js';
import { DEFAULT_RELEVANCE_FLOOR, DEFAULT_VECTOR_WEIGHT, type Embedder } from '../rag/embed/embedder.js';

/** Reciprocal rank fusion's constant: 60, as in Cormack et al. (2009) and the document search. */
const RRF_K = 60;
/** Catalogues whose vectors are kept (a session rarely has more than one; a few survive a server coming and going). */
const MAX_CACHED_CATALOGUES = 4;
/** Characters of a description embedded: its opening says what the tool does. */
const MAX_EMBEDDED_DESCRIPTION_CHARS = 500;
/**
 * Longest wait for the model (the catalogue's vectors the first time, then each query's) before the search answers
 * with the word ranking alone: a slow or absent model must not hold up a plan.
 */
export const TOOL_EMBEDDING_WAIT_MS = 30_000;

/** Vectors of the catalogue's tools, unit length, by `catalogueKey`; a failed embedding stays cached as a failure. */
const cache = new Map<string, Promise<Float32Array[]>>();

/** What identifies a catalogue's vectors: the model and every tool's server, name and description. */
export function catalogueKey(tools: readonly ToolInfo[], embedder: Embedder): string {
  const hash = createHash('sha256').update(embedder.id);
  for (const t of tools) hash.update(`\0${t.server}\0${t.remoteName}\0${t.description}`);
  return hash.digest('hex');
}

/** The text embedded for a tool: its name in words, then what its description says. */
function toolText(tool: ToolInfo): string {
  const name = tool.remoteName.replace(/[_\-.]+/g, ' ').replace(/([a-z0-9])([A-Z])/g, '$1 $2');
  return `${name} (${tool.server}): ${tool.description.replace(/\s+/g, ' ').trim().slice(0, MAX_EMBEDDED_DESCRIPTION_CHARS)}`;
}

function unit(vector: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(vector);
  let sum = 0;
  for (const x of out) sum += x * x;
  const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  for (let i = 0; i < out.length; i++) out[i]! *= scale;
  return out;
}

/** The tools' vectors, embedded once per catalogue and model. */
function toolVectors(tools: readonly ToolInfo[], embedder: Embedder): Promise<Float32Array[]> {
  const key = catalogueKey(tools, embedder);
  const hit = cache.get(key);
  if (hit) {
    // Most recently used last, so the oldest catalogue is the one dropped.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const vectors = embedder.embed(tools.map(toolText)).then((vs) => vs.map(unit));
  // A rejection is kept (and handled here) so a broken model is not asked again for every search of the run.
  vectors.catch(() => undefined);
  cache.set(key, vectors);
  if (cache.size > MAX_CACHED_CATALOGUES) cache.delete(cache.keys().next().value!);
  return vectors;
}

/** `promise`'s value, or undefined once it fails or `ms` pass (the timer never keeps the process alive). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `embedder` is a real embedding model worth fusing (not the built-in lexical one, not weighted 0). */
export function fusesWith(embedder: Embedder | undefined): embedder is Embedder {
  return embedder !== undefined && !embedder.inProcess && (embedder.vectorWeight ?? DEFAULT_VECTOR_WEIGHT) > 0;
}

/** 1-based ranks of `scores`, highest first, ties in catalogue order; only where `counts(i)`, else undefined. */
function ranks(scores: readonly number[], counts: (i: number) => boolean): Array<number | undefined> {
  const order = scores.map((s, i) => ({ s, i })).filter(({ i }) => counts(i)).sort((a, b) => b.s - a.s || a.i - b.i);
  const out: Array<number | undefined> = scores.map(() => undefined);
  order.forEach(({ i }, r) => (out[i] = r + 1));
  return out;
}

/**
 * Scores of `tools` for `query` fusing `lexical` (scoreTools, 0: no word matched) with the cosine similarity of the
 * query's and the tools' embeddings: each ranking adds 1/(RRF_K + rank), the embedding's times the embedder's
 * vectorWeight. A tool no word matched counts only when its similarity reaches the embedder's relevance floor.
 * When the model fails or is slower than TOOL_EMBEDDING_WAIT_MS, the word scores come back unchanged. Never throws.
 */
export async function fusedToolScores(tools: readonly ToolInfo[], query: string, lexical: readonly number[], embedder: Embedder): Promise<number[]> {
  const vectors = await within(toolVectors(tools, embedder), TOOL_EMBEDDING_WAIT_MS);
  if (!vectors || vectors.length !== tools.length) return [...lexical];
  const asked = await within(Promise.resolve().then(() => embedder.embed([query], 'query')), TOOL_EMBEDDING_WAIT_MS);
  if (!asked || asked.length !== 1 || asked[0]!.length !== vectors[0]?.length) return [...lexical];
  const q = unit(asked[0]!);
  const similarity = vectors.map((v) => v.reduce((sum, x, i) => sum + x * q[i]!, 0));
  const floor = embedder.relevanceFloor ?? DEFAULT_RELEVANCE_FLOOR;
  const weight = embedder.vectorWeight ?? DEFAULT_VECTOR_WEIGHT;
  const byWords = ranks(lexical, (i) => lexical[i]! > 0);
  const byMeaning = ranks(similarity, (i) => lexical[i]! > 0 || similarity[i]! >= floor);
  return tools.map((_, i) => {
    const w = byWords[i];
    const m = byMeaning[i];
    return (w === undefined ? 0 : 1 / (RRF_K + w)) + (m === undefined ? 0 : weight / (RRF_K + m));
  });
}
