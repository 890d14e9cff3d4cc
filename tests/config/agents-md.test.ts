// Standing instructions: which AGENTS.md files apply, their bounds, and where they are sent.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_AGENTS_FILE_CHARS, MAX_AGENTS_TOTAL_CHARS, findAgentsFiles, standingInstructions } from '../../src/config/agents-md.js';
import { instructedLlm } from '../../src/llm/instructed-llm.js';
import { ScriptedLlm } from '../helpers/scripted-llm.js';

/** outside/ (an AGENTS.md that is not ours) › repo/ (.git, AGENTS.md) › sub/ (AGENTS.md) › deeper/ (the working folder); user/AGENTS.md. */
function tree(): { root: string; repo: string; cwd: string; user: string } {
  const root = mkdtempSync(join(tmpdir(), 'cortex-agents-'));
  const repo = join(root, 'outside', 'repo');
  const cwd = join(repo, 'sub', 'deeper');
  const user = join(root, 'user');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(repo, '.git'));
  mkdirSync(user);
  writeFileSync(join(root, 'outside', 'AGENTS.md'), 'not this project');
  writeFileSync(join(repo, 'AGENTS.md'), 'Answer in metric units.');
  writeFileSync(join(repo, 'sub', 'AGENTS.md'), 'Round money to cents.');
  writeFileSync(join(user, 'AGENTS.md'), 'Be brief.');
  return { root, repo, cwd, user };
}

describe('findAgentsFiles', () => {
  it('reads the user’s file, then the repository root’s down to the working folder, and nothing above the root', () => {
    const { repo, cwd, user } = tree();
    const files = findAgentsFiles({ cwd, userDir: user });
    expect(files.map((f) => [f.path, f.text])).toEqual([
      [join(user, 'AGENTS.md'), 'Be brief.'],
      [join(repo, 'AGENTS.md'), 'Answer in metric units.'],
      [join(repo, 'sub', 'AGENTS.md'), 'Round money to cents.'],
    ]);
    const text = standingInstructions(files);
    expect(text.indexOf('Be brief.')).toBeLessThan(text.indexOf('Round money to cents.'));
    expect(text).toContain(`# From ${join(repo, 'AGENTS.md')}`);
  });

  it('reads only the working folder’s file outside a repository, and none when there is none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cortex-agents-'));
    expect(findAgentsFiles({ cwd: dir, userDir: join(dir, 'nouser') })).toEqual([]);
    writeFileSync(join(dir, 'AGENTS.md'), 'Use tabs.');
    expect(findAgentsFiles({ cwd: dir, userDir: join(dir, 'nouser') }).map((f) => f.text)).toEqual(['Use tabs.']);
    expect(standingInstructions([])).toBe('');
  });

  it('keeps each file and all of them together within their bounds, and says so', () => {
    const { repo, cwd, user } = tree();
    writeFileSync(join(repo, 'AGENTS.md'), 'x'.repeat(MAX_AGENTS_FILE_CHARS * 3));
    writeFileSync(join(repo, 'sub', 'AGENTS.md'), 'y'.repeat(MAX_AGENTS_FILE_CHARS * 3));
    const files = findAgentsFiles({ cwd, userDir: user });
    expect(files.map((f) => f.cut)).toEqual([false, true, true]);
    const kept = files.reduce((sum, f) => sum + f.text.replace(/\n\[the rest.*$/, '').length, 0);
    expect(kept).toBeLessThanOrEqual(MAX_AGENTS_TOTAL_CHARS);
    expect(files[1]!.text).toMatch(/\[the rest of this file was left out/);
  });
});

describe('instructedLlm', () => {
  it('adds the standing instructions to the system instruction of plan requests only', async () => {
    const inner = new ScriptedLlm({ turns: ['a', 'b', 'c'] });
    const llm = instructedLlm(inner, 'Be brief.');
    await llm.generate({ prompt: 'plan', stage: 'decision' });
    await llm.generate({ prompt: 'choose', stage: 'perception' });
    await llm.generate({ prompt: 'plan', stage: 'decision', system: 'Rules.' });
    expect(inner.requests.map((r) => r.system)).toEqual(['Be brief.', undefined, 'Rules.\n\nBe brief.']);
    expect(instructedLlm(inner, '')).toBe(inner);
  });
});
