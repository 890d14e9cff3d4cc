// A word after `cortex` that names one of its flags points at the flag.
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

describe('cortex did-you-mean', () => {
  it('suggests --version for `cortex version`, and exits 2', async () => {
    const run = await runCli(['version']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown command 'version'");
    expect(run.stderr).toContain('Did you mean --version?');
    expect(run.stderr).not.toContain('Did you mean sessions?');
  });
});
