// A cancel's abandoned work rejecting later must not end the process; any other unhandled rejection still does.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isAbortError } from '../../src/cli/abandoned-aborts.js';
import { builtPath } from '../../src/paths.js';

/** Runs a script with the handler installed (from the built file) and returns how the process ended. */
function runWithHandler(body: string): { status: number | null; stderr: string } {
  const script = `import { ignoreAbandonedAborts } from ${JSON.stringify(builtPath('src/cli/abandoned-aborts.js'))};
ignoreAbandonedAborts();
${body}
setTimeout(() => console.log('still running'), 50);`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr + run.stdout };
}

describe('abandoned aborts', () => {
  it('recognises an abort directly or as the cause of a wrapper, and nothing else', () => {
    const controller = new AbortController();
    controller.abort();
    expect(isAbortError(controller.signal.reason)).toBe(true);
    expect(isAbortError(new Error('request failed', { cause: controller.signal.reason }))).toBe(true);
    expect(isAbortError(new Error('boom'))).toBe(false);
    expect(isAbortError('AbortError')).toBe(false);
  });

  it('keeps the process alive after an abandoned abort, and still ends it for a real failure', () => {
    const aborted = runWithHandler(`const c = new AbortController(); c.abort(); Promise.reject(c.signal.reason);`);
    expect(aborted).toMatchObject({ status: 0 });
    expect(aborted.stderr).toContain('still running');
    const failed = runWithHandler(`Promise.reject(new Error('a real bug'));`);
    expect(failed.status).not.toBe(0);
    expect(failed.stderr).toContain('a real bug');
  });
});
