// `cortex servers` prints each server as soon as it is ready, not all at the end, each server's lines together.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtPath, PROJECT_ROOT } from '../../src/paths.js';

/** Upper bound on the run; it only fails a hung CLI. */
const RUN_BOUND_MS = 60_000;

describe('cortex servers list', () => {
  it('shows a ready server while another is still starting, then the other, and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cortex-servers-'));
    const gate = join(dir, 'gate');
    const profile = join(dir, 'profiles.yaml');
    writeFileSync(
      profile,
      `paths:\n  memory: ${join(dir, 'memory')}\nmcp_servers:\n` +
        `  - id: gated\n    command: ${process.execPath}\n    args: [${JSON.stringify(join(PROJECT_ROOT, 'tests/fixtures/gated-server.mjs'))}]\n    env:\n      GATE_FILE: ${JSON.stringify(gate)}\n` +
        `  - id: math\n    script: ${builtPath('mcp-servers/math/main.js')}\n`,
    );
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', profile, 'servers'], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      timeout: RUN_BOUND_MS,
    });
    let stdout = '';
    let stderr = '';
    let shownBeforeGate = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // The gated server cannot be ready until the gate opens: math's lines must already be out.
      if (!shownBeforeGate && /roots offered/.test(stdout)) {
        shownBeforeGate = stdout;
        writeFileSync(gate, 'open');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    expect(shownBeforeGate).toMatch(/^math +ready +15 tools: /m);
    expect(shownBeforeGate).not.toContain('gated');
    const lines = stdout.trimEnd().split('\n');
    // Each server's two lines stay together: math first (ready first), then gated.
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^math +ready/);
    expect(lines[1]).toMatch(/roots offered/);
    expect(lines[2]).toMatch(/^gated +ready +1 tool: opened$/);
    expect(lines[3]).toMatch(/roots offered/);
  });
});
