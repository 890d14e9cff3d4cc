// The reply corpus (tests/fixtures/replies): every realistic model reply runs first try with the right result, or gets the feedback promised.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCorpus, runCorpus, summarise, type CaseResult } from '../../bench/reply-corpus.js';
import { createSandbox, type ProcessSandbox } from '../../src/sandbox/create-sandbox.js';

const cases = loadCorpus();
let sandbox: ProcessSandbox;
let results: Map<string, CaseResult>;

beforeAll(async () => {
  sandbox = createSandbox();
  results = new Map((await runCorpus(sandbox, cases)).map((r) => [r.name, r]));
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
});

describe('the reply corpus', () => {
  it('holds at least 60 replies', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
  });

  it.each(cases.filter((c) => c.expect !== 'feedback').map((c) => [c.name, c.source]))('runs %s (%s) on the first try with the right result', (name) => {
    expect(results.get(name)).toMatchObject({ firstTry: 'right' });
  });

  it.each(cases.filter((c) => c.expect === 'feedback').map((c) => [c.name, c.feedback!]))('feeds %s back with "%s", and the next lifeline answers', (name, feedback) => {
    const r = results.get(name)!;
    expect(r.firstTry).toBe('feedback');
    expect(r.outcome.kind === 'invalid_plan' || r.outcome.kind === 'sandbox_error' ? r.outcome.error : '').toContain(feedback);
    expect(r.eventual).toBe(true);
  });

  it('reports every meaningful reply right first try and every reply right within one retry', () => {
    const s = summarise([...results.values()]);
    expect(s).toMatchObject({ firstTryRight: s.meaningful, eventual: s.total, wrong: 0 });
  });
});
