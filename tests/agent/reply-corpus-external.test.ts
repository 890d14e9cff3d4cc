// The external reply corpus (tests/fixtures/replies-external): replies shaped after other projects' suites and issue threads run as a careful reviewer expects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type ProcessSandbox } from '../../src/sandbox/create-sandbox.js';
import { loadExternalCorpus, runExternalCase, summariseExternal, type ExternalResult } from './external-corpus.js';

const cases = loadExternalCorpus();
let sandbox: ProcessSandbox;
let results: Map<string, ExternalResult>;

beforeAll(async () => {
  sandbox = createSandbox();
  results = new Map();
  for (const c of cases) results.set(c.file, await runExternalCase(sandbox, c));
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
});

describe('the external reply corpus', () => {
  it('holds at least 80 replies, each naming the project it comes from', () => {
    expect(cases.length).toBeGreaterThanOrEqual(80);
    for (const c of cases) expect(c.source.length).toBeGreaterThan(10);
  });

  it.each(cases.filter((c) => c.expect !== 'refused').map((c) => [c.file, c.source]))('runs %s (%s) on the first try with the expected result and calls', (file) => {
    expect(results.get(file)).toMatchObject({ verdict: 'right' });
  });

  it.each(cases.filter((c) => c.expect === 'refused').map((c) => [c.file, c.problem!]))('refuses %s and names the problem: %s', (file, problem) => {
    const r = results.get(file)!;
    expect(r.verdict).toBe('right');
    const outcome = r.outcome;
    if (outcome.kind !== 'invalid_plan' && outcome.kind !== 'sandbox_error') throw new Error(`expected a refusal, got ${outcome.kind}`);
    expect(outcome.problem).toBe(problem);
    // The person's line is plain words, not the instruction written for the model.
    expect(outcome.diagnosis).not.toMatch(/Reply with|send the whole|```javascript/i);
  });

  it('runs nothing silently wrong', () => {
    expect(summariseExternal([...results.values()])).toMatchObject({ silentWrong: 0 });
  });
});
