// BEIR folders (with or without a qrels header), the ranking metrics, and clear errors for malformed input.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { BeirFormatError, loadBeirCollection } from '../../src/rag/search/beir-collection.js';
import { mrrAt, ndcgAt, recallAt } from '../../src/rag/search/retrieval-metrics.js';

const FIXTURE = join(PROJECT_ROOT, 'tests/fixtures/beir-small');

describe('ranking metrics', () => {
  const judged = new Map([
    ['a', 2],
    ['b', 1],
  ]);
  it('computes nDCG@k with graded gains, recall@k and MRR@k as BEIR does', () => {
    expect(ndcgAt(['a', 'b', 'x'], judged, 10)).toBeCloseTo(1, 12);
    // DCG = 1/log2(2) + 2/log2(3); ideal = 2 + 1/log2(3).
    expect(ndcgAt(['b', 'a'], judged, 10)).toBeCloseTo((1 + 2 / Math.log2(3)) / (2 + 1 / Math.log2(3)), 12);
    expect(recallAt(['x', 'b', 'y'], judged, 2)).toBe(0.5);
    expect(mrrAt(['x', 'y', 'a'], judged, 10)).toBeCloseTo(1 / 3, 12);
    expect(mrrAt(['x', 'y', 'a'], judged, 2)).toBe(0);
  });
});

describe('loadBeirCollection', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cortex-beir-'));
    await mkdir(join(dir, 'qrels'));
    await writeFile(join(dir, 'corpus.jsonl'), '{"_id":"d1","title":"T","text":"one"}\n{"_id":2,"text":"two"}\n');
    await writeFile(join(dir, 'queries.jsonl'), '{"_id":"q1","text":"one?"}\n{"_id":"q2","text":"unjudged"}\n');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the committed fixture: judged queries only, graded judgements', async () => {
    const collection = await loadBeirCollection(FIXTURE);
    expect(collection.corpus).toHaveLength(12);
    expect(collection.queries.map((q) => q.id)).not.toContain('q10');
    expect(collection.qrels.get('q4')).toEqual(new Map([['d6', 2], ['d5', 1]]));
  });

  it('accepts qrels without a header line and ignores judgements of unknown documents', async () => {
    await writeFile(join(dir, 'qrels', 'test.tsv'), 'q1\td1\t1\nq1\tgone\t1\nq1\t2\t0\n');
    const collection = await loadBeirCollection(dir);
    expect(collection.queries).toEqual([{ id: 'q1', text: 'one?' }]);
    expect(collection.qrels.get('q1')).toEqual(new Map([['d1', 1]]));
    expect(collection.corpus[1]).toEqual({ id: '2', title: '', text: 'two' });
  });

  it('names the file and line of a malformed input', async () => {
    await expect(loadBeirCollection(dir)).rejects.toThrow(/qrels\/test\.tsv: missing/);
    await writeFile(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\thigh\n');
    await expect(loadBeirCollection(dir)).rejects.toThrow(/test\.tsv: line 2: score "high" is not a number/);
    await writeFile(join(dir, 'qrels', 'test.tsv'), 'q9\td1\t1\n');
    await expect(loadBeirCollection(dir)).rejects.toBeInstanceOf(BeirFormatError);
    await writeFile(join(dir, 'qrels', 'test.tsv'), 'q1\td1\t1\n');
    await writeFile(join(dir, 'corpus.jsonl'), '{"_id":"d1","text":"one"}\nnot json\n');
    await expect(loadBeirCollection(dir)).rejects.toThrow(/corpus\.jsonl: line 2 is not JSON/);
  });
});
