// Every recording the README replays is in the repository and answers as the README shows, with no LLM reachable.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { runCli } from '../cli/run-cli.js';
import { ollamaEnv, tempProject } from './ask-harness.js';

const README = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
/** `cortex ask --replay FILE "QUESTION"` lines of the README. */
const replays = [...README.matchAll(/cortex ask --replay (\S+) "([^"]+)"/g)].map(([, file, question]) => ({ file: file!, question: question! }));

describe('the README front door', () => {
  it('replays only recordings the repository has', () => {
    expect(replays.length).toBeGreaterThan(0);
    expect(replays.filter((r) => !existsSync(join(PROJECT_ROOT, r.file)))).toEqual([]);
  });

  it.each(replays)('replays $file to the answer the README shows, with no LLM reachable', async ({ file, question }) => {
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, 'ask', '--replay', join(PROJECT_ROOT, file), question], { env: ollamaEnv('http://127.0.0.1:1') });
    expect(run.code).toBe(0);
    expect(README).toContain(`\n${run.stdout.trim()}\n`);
  }, 120_000);
});
