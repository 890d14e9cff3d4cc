// Reads a BEIR-format test collection: corpus.jsonl, queries.jsonl and qrels/test.tsv (header line optional).
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CortexError } from '../../errors.js';

/** Longest line read from any of the files: one document, not a whole dump on one line. */
export const MAX_BEIR_LINE_CHARS = 10_000_000;

/** One corpus document. */
export interface BeirDocument {
  id: string;
  title: string;
  text: string;
}

/** A loaded collection: the judged queries only (a query without judgements cannot be scored). */
export interface BeirCollection {
  corpus: BeirDocument[];
  queries: Array<{ id: string; text: string }>;
  /** query id → (document id → grade). */
  qrels: Map<string, Map<string, number>>;
}

/** A file of the collection is missing or malformed; names the file and line. */
export class BeirFormatError extends CortexError {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super('beir_format', `${file}: ${message}`);
  }
}

async function* lines(path: string): AsyncGenerator<{ line: string; number: number }> {
  const reader = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let number = 0;
  for await (const line of reader) {
    number++;
    if (line.length > MAX_BEIR_LINE_CHARS) throw new BeirFormatError(path, `line ${number} is longer than ${MAX_BEIR_LINE_CHARS} characters`);
    if (line.trim()) yield { line, number };
  }
}

async function readJsonl(path: string, each: (record: Record<string, unknown>, number: number) => void): Promise<void> {
  for await (const { line, number } of lines(path)) {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw new BeirFormatError(path, `line ${number} is not JSON`);
    }
    if (!record || typeof record !== 'object' || Array.isArray(record)) throw new BeirFormatError(path, `line ${number} is not a JSON object`);
    each(record as Record<string, unknown>, number);
  }
}

function idOf(record: Record<string, unknown>, path: string, number: number): string {
  const id = record._id;
  if (typeof id === 'string' && id) return id;
  if (typeof id === 'number') return String(id);
  throw new BeirFormatError(path, `line ${number} has no "_id"`);
}

async function mustExist(path: string): Promise<void> {
  try {
    await access(path);
  } catch {
    throw new BeirFormatError(path, 'missing (a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/test.tsv)');
  }
}

/**
 * Loads the BEIR folder `dir`. Judgements naming unknown documents are ignored (BEIR subsets often keep them);
 * queries without a positive judgement are dropped.
 * @throws BeirFormatError for a missing file, a malformed line, or a collection with no judged query.
 */
export async function loadBeirCollection(dir: string): Promise<BeirCollection> {
  const corpusPath = join(dir, 'corpus.jsonl');
  const queriesPath = join(dir, 'queries.jsonl');
  const qrelsPath = join(dir, 'qrels', 'test.tsv');
  for (const path of [corpusPath, queriesPath, qrelsPath]) await mustExist(path);

  const corpus: BeirDocument[] = [];
  const ids = new Set<string>();
  await readJsonl(corpusPath, (record, number) => {
    const id = idOf(record, corpusPath, number);
    if (ids.has(id)) throw new BeirFormatError(corpusPath, `line ${number} repeats document id "${id}"`);
    ids.add(id);
    const text = typeof record.text === 'string' ? record.text : '';
    const title = typeof record.title === 'string' ? record.title : '';
    corpus.push({ id, title, text });
  });
  if (corpus.length === 0) throw new BeirFormatError(corpusPath, 'holds no documents');

  const qrels = new Map<string, Map<string, number>>();
  for await (const { line, number } of lines(qrelsPath)) {
    const fields = line.split('\t').map((f) => f.trim());
    if (fields.length < 3) {
      if (number === 1) continue;
      throw new BeirFormatError(qrelsPath, `line ${number} needs query-id, corpus-id and score separated by tabs`);
    }
    const grade = Number(fields[2]);
    if (!Number.isFinite(grade)) {
      if (number === 1) continue; // the header line: query-id corpus-id score
      throw new BeirFormatError(qrelsPath, `line ${number}: score "${fields[2]}" is not a number`);
    }
    if (grade <= 0 || !ids.has(fields[1]!)) continue;
    let judged = qrels.get(fields[0]!);
    if (!judged) qrels.set(fields[0]!, (judged = new Map()));
    judged.set(fields[1]!, grade);
  }

  const queries: BeirCollection['queries'] = [];
  await readJsonl(queriesPath, (record, number) => {
    const id = idOf(record, queriesPath, number);
    if (typeof record.text !== 'string') throw new BeirFormatError(queriesPath, `line ${number} has no "text"`);
    if (qrels.has(id)) queries.push({ id, text: record.text });
  });
  if (queries.length === 0) throw new BeirFormatError(qrelsPath, 'judges no query of queries.jsonl against a document of corpus.jsonl');
  return { corpus, queries, qrels };
}
