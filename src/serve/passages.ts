// GET /v1/passages?id=<chunk_id>: one indexed passage (file, page, text) for the page's sources; and the indexer's per-file failures.
import { open, readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { type ChunkRecord, DOC_CACHE_FILE, DocCacheFileSchema, METADATA_FILE, MetadataFileSchema } from '../rag/index/index-files.js';
import { ApiError } from './api-error.js';
import { sendJson } from './http-io.js';

/** Longest chunk id accepted (a document path and `#n`). */
const MAX_CHUNK_ID_CHARS = 2_000;
/** How far into a passage a sentence start is looked for; past this the passage is shown as stored. */
export const MAX_SENTENCE_SKIP_CHARS = 300;
/** Formats whose passages have meaningful page numbers (as format-results.ts shows them). */
const PAGED_FORMATS = new Set(['pdf']);

/** What starts a sentence or a block: a capital, a digit, markdown markers, an opening quote or bracket. */
const STARTS_CLEANLY = /^[\p{Lu}\p{Lt}\p{N}#>*|`"'“‘([-]/u;
/** A sentence end (with closing quotes or brackets) then space, or a line break: the text after it starts cleanly. */
const SENTENCE_BREAK = /[.!?…]["'”’)\]]*\s+|\n+/gu;

/**
 * `text` from its first sentence start: chunks overlap, so a stored passage may begin mid-sentence. Cut only when a
 * clean start comes within MAX_SENTENCE_SKIP_CHARS; otherwise (or when it already starts cleanly) unchanged.
 */
export function fromSentenceStart(text: string): { text: string; cut: boolean } {
  const trimmed = text.trimStart();
  if (trimmed === '' || STARTS_CLEANLY.test(trimmed)) return { text: trimmed, cut: false };
  for (const match of trimmed.matchAll(SENTENCE_BREAK)) {
    const at = match.index + match[0].length;
    if (at > MAX_SENTENCE_SKIP_CHARS) break;
    if (STARTS_CLEANLY.test(trimmed.slice(at))) return { text: trimmed.slice(at), cut: true };
  }
  return { text: trimmed, cut: false };
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch {
    // Missing or half-written: the caller treats it as "nothing indexed yet".
    return undefined;
  }
}

/** File (relative to the documents folder) → the reason the indexer could not read it; empty when there is no index. */
export async function indexFailures(indexDir: string): Promise<Map<string, string>> {
  const parsed = DocCacheFileSchema.safeParse(await readJson(join(indexDir, DOC_CACHE_FILE)));
  const failures = new Map<string, string>();
  if (!parsed.success) return failures;
  for (const [file, entry] of Object.entries(parsed.data.files)) if (entry.failed !== undefined) failures.set(file, entry.failed);
  return failures;
}

/** One passage as the page shows it. */
export interface Passage {
  doc: string;
  chunk_id: string;
  /** Null for formats without pages. */
  page: number | null;
  text: string;
  /** True when the stored text began mid-sentence and its first words were left out. */
  cut: boolean;
}

/** The last metadata.json read, by path: its chunks by id, kept while the file (replaced atomically by the indexer) is the same. */
const chunksRead = new Map<string, { stamp: string; byId: Map<string, ChunkRecord> }>();

/** The chunks of metadata.json in `indexDir` by id, parsed again only when the file changed; null when missing or unreadable. */
async function chunksById(indexDir: string): Promise<Map<string, ChunkRecord> | null> {
  const path = join(indexDir, METADATA_FILE);
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    chunksRead.delete(path);
    return null;
  }
  try {
    const info = await handle.stat();
    const stamp = `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}`;
    const known = chunksRead.get(path);
    if (known?.stamp === stamp) return known.byId;
    let json: unknown;
    try {
      json = JSON.parse(await handle.readFile('utf8'));
    } catch {
      // Half-written or not JSON: treated as "nothing indexed yet".
      return null;
    }
    const parsed = MetadataFileSchema.safeParse(json);
    if (!parsed.success) return null;
    const byId = new Map<string, ChunkRecord>();
    // The first of a repeated id, as a search through the list would find.
    for (const c of parsed.data.chunks) if (!byId.has(c.chunk_id)) byId.set(c.chunk_id, c);
    chunksRead.set(path, { stamp, byId });
    return byId;
  } finally {
    await handle.close();
  }
}

/** The passage `chunkId` of the index in `indexDir`; null when the index has none of that id (or no index). */
export async function readPassage(indexDir: string, chunkId: string): Promise<Passage | null> {
  const chunk = (await chunksById(indexDir))?.get(chunkId);
  if (!chunk) return null;
  const { text, cut } = fromSentenceStart(chunk.chunk);
  return { doc: chunk.doc, chunk_id: chunk.chunk_id, page: PAGED_FORMATS.has(chunk.format) ? chunk.page : null, text, cut };
}

/** GET /v1/passages?id=<chunk_id>: 400 without an id, 404 when the index no longer holds it. */
export async function passageRoute(res: ServerResponse, indexDir: string, url: URL, headers: Record<string, string>): Promise<void> {
  const id = url.searchParams.get('id') ?? '';
  if (id === '' || id.length > MAX_CHUNK_ID_CHARS) throw new ApiError(400, 'bad_request', 'id is required: a passage id such as notes.md#0');
  const passage = await readPassage(indexDir, id);
  if (!passage) throw new ApiError(404, 'passage_not_found', `the index holds no passage ${id.slice(0, 200)} (the document may have changed since; ask again)`);
  sendJson(res, 200, passage, headers);
}
