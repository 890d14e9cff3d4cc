// `cortex eval-retrieval` through the built CLI on the committed BEIR fixture.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { runCli } from './run-cli.js';

const FIXTURE = join(PROJECT_ROOT, 'tests/fixtures/beir-small');

function profileWith(yaml: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'cortex-eval-')), 'profiles.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('cortex eval-retrieval', () => {
  it('prints nDCG@10, recall@5/@100, MRR@10 and latency for vector, BM25 and fused search', async () => {
    const run = await runCli(['eval-retrieval', FIXTURE]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/12 documents \(12 chunks\), 9 judged queries; embedder builtin:lexical-v2-1024/);
    expect(run.stdout).toMatch(/retriever\s+nDCG@10\s+R@5\s+R@100\s+MRR@10\s+ms\/query/);
    // Every query's best passage is found first by keyword and by fused search on this small set.
    expect(run.stdout).toMatch(/^BM25\s+1\.000\s+1\.000\s+1\.000\s+1\.000\s+\d/m);
    expect(run.stdout).toMatch(/^fused\s+1\.000\s+1\.000\s+1\.000\s+1\.000\s+\d/m);
    expect(run.stdout).toMatch(/^vector\s+[01]\.\d{3}/m);
  });

  it('answers --json with the profile fusion weight and every figure', async () => {
    const profile = profileWith('rag:\n  vector_weight: 0.5\n');
    const run = await runCli(['--profile', profile, '--json', 'eval-retrieval', FIXTURE]);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ status: 'ok', documents: 12, queries: 9, vectorWeight: 0.5 });
    for (const name of ['vector', 'BM25', 'fused']) {
      const f = result.figures[name];
      for (const key of ['ndcg10', 'recall5', 'recall100', 'mrr10']) expect(f[key]).toBeGreaterThanOrEqual(0.5);
      expect(f.latencyMs.median).toBeGreaterThanOrEqual(0);
    }
  });

  it('names the missing file of a folder that is not a BEIR collection, as bad usage (exit 2)', async () => {
    const run = await runCli(['eval-retrieval', tmpdir()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/corpus\.jsonl: missing \(a BEIR folder holds corpus\.jsonl, queries\.jsonl and qrels\/test\.tsv\)/);
  });
});

describe('cortex eval-retrieval usage', () => {
  it('exits 2 for a folder that does not exist, and for a second folder given', async () => {
    const missing = await runCli(['eval-retrieval', join(tmpdir(), 'no-such-beir-folder')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no-such-beir-folder\/corpus\.jsonl: missing/);
    const extra = await runCli(['eval-retrieval', FIXTURE, FIXTURE]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("too many arguments for 'eval-retrieval'");
  });
});
