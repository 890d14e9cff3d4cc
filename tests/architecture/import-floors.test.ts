// The import rules of src/ (.dependency-cruiser.cjs): no import circle, no import that runs back up a floor.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = resolve(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: Array<{ name: string }>;
}

/** The rule violations dependency-cruiser finds in `cwd`'s src/, as "rule: from -> to" lines. */
function violations(cwd: string): string[] {
  const json = execFileSync(process.execPath, [CLI, 'src', '--config', resolve(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json'], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const found = (JSON.parse(json) as { summary: { violations: Violation[] } }).summary.violations;
  return found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe('the import rules of src/', () => {
  it('hold on the code: no circle and no import up a floor', () => {
    expect(violations(ROOT)).toEqual([]);
  });

  it('catch an import that runs back up and a circle (a small tree that has both)', () => {
    expect(violations(resolve(ROOT, 'tests/fixtures/floors'))).toEqual([
      'no-circular: src/mcp/again.ts -> src/mcp/call.ts',
      'up-from-atomic-write+closest-names+errors+kept-by-version+paths+result-shape: src/errors.ts -> src/cli/run.ts',
    ]);
  });
});
