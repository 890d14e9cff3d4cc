// `cortex index` lists a file it could not index on every run, not only the first; --strict makes that an error exit.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { tempProject } from './ask-harness.js';

describe('cortex index with a broken file (end to end)', () => {
  it('lists it on every run with its reason, and exits 1 with --strict', async () => {
    const { profile, documentsDir } = tempProject();
    mkdirSync(documentsDir);
    writeFileSync(join(documentsDir, 'broken.pdf'), 'this is not a PDF at all');
    writeFileSync(join(documentsDir, 'notes.txt'), 'The lighthouse keeper logs the weather every morning at six.\n');

    const first = await runCli(['--profile', profile, 'index']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/1 added, .*1 failed/);
    expect(first.stdout).toMatch(/skipped broken\.pdf: /);

    const second = await runCli(['--profile', profile, 'index']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/0 added, .*1 unchanged, 1 failed/);
    expect(second.stdout).toMatch(/skipped broken\.pdf: .*\(unchanged since it failed; fix or remove it\)/);

    const strict = await runCli(['--profile', profile, 'index', '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('1 file could not be indexed (--strict)');
  });
});
