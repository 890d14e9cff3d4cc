// The on-disk shape of faiss_index/: index.bin (faiss IndexFlatIP), metadata.json (one record per vector), doc_index_cache.json.
import { z } from 'zod';

/** The faiss index: IndexFlatIP over L2-normalised vectors, so its scores are cosine similarities (empty when vectors are on demand). */
export const INDEX_FILE = 'index.bin';
/** One record per vector, in vector order, plus the model, dimension, generation and index.bin's SHA-256. Written last. */
export const METADATA_FILE = 'metadata.json';
/** Per document file: content hash, size, mtime, model and chunk ids, so unchanged files are skipped. */
export const DOC_CACHE_FILE = 'doc_index_cache.json';
/** Version of these files' layout; another value is read as "unusable, rebuild". */
export const INDEX_LAYOUT_VERSION = 1;

export const ChunkRecordSchema = z.object({
  /** Document path relative to the documents folder, with / separators. */
  doc: z.string(),
  /** `<doc>#<n>`, n counting the document's chunks from 0. */
  chunk_id: z.string(),
  page: z.number().int().min(1),
  /** Extractor's format of the document ('pdf', 'md', ...): pages are shown for paged formats only. */
  format: z.string(),
  /** The chunk's text. */
  chunk: z.string(),
});
export type ChunkRecord = z.infer<typeof ChunkRecordSchema>;

export const MetadataFileSchema = z.object({
  format: z.literal('cortex-r-faiss-metadata'),
  version: z.literal(INDEX_LAYOUT_VERSION),
  generation: z.number().int().min(1),
  model: z.string().min(1),
  dimension: z.number().int().min(1),
  metric: z.literal('inner_product'),
  chunker: z.string().min(1),
  count: z.number().int().min(0),
  index_sha256: z.string().regex(/^[0-9a-f]{64}$/u),
  /** 'on_demand': index.bin holds no vectors (an in-process embedder's, unused by the fused search); absent: stored. */
  vectors: z.literal('on_demand').optional(),
  updated_at: z.string(),
  chunks: z.array(ChunkRecordSchema),
});
export type MetadataFile = z.infer<typeof MetadataFileSchema>;

export const DocEntrySchema = z.object({
  /** SHA-256 of the file's bytes ('' when the file was too large to hash). */
  hash: z.string(),
  size: z.number().int().min(0),
  mtime_ms: z.number(),
  /** When this entry was written: a file modified within RACY_MTIME_WINDOW_MS of it is hashed again. */
  indexed_at_ms: z.number(),
  model: z.string(),
  format: z.string().optional(),
  title: z.string().nullable().optional(),
  chunk_ids: z.array(z.string()),
  /** Set when the file could not be indexed; it is retried only once it changes. */
  failed: z.string().optional(),
  /** What read the images of a file that can hold them (pdf, docx, html, image) when it was extracted; absent: none did. */
  image_reader: z.string().optional(),
});
export type DocEntry = z.infer<typeof DocEntrySchema>;

export const DocCacheFileSchema = z.object({
  format: z.literal('cortex-r-doc-index-cache'),
  version: z.literal(INDEX_LAYOUT_VERSION),
  generation: z.number().int().min(1),
  model: z.string().min(1),
  chunker: z.string().min(1),
  files: z.record(z.string(), DocEntrySchema),
});
export type DocCacheFile = z.infer<typeof DocCacheFileSchema>;
