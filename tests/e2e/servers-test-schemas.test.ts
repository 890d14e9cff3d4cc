// `cortex servers test --all` (the built CLI, its bundled MCP client) against servers whose tools declare output schemas:
// a result that breaks its schema fails, a schema no validator can compile fails its tool without calling it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { runCli } from '../cli/run-cli.js';

const fixture = (name: string) => JSON.stringify(join(PROJECT_ROOT, 'tests', 'fixtures', name));

it('checks results against output schemas, and does not call a tool whose schema cannot be compiled', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-schemas-'));
  const profile = join(dir, 'profiles.yaml');
  const server = (id: string, file: string) => [`  - id: ${id}`, `    command: ${JSON.stringify(process.execPath)}`, `    args: [${fixture(file)}]`];
  writeFileSync(profile, ['paths:', `  cache: ${join(dir, 'cache')}`, 'mcp_servers:', ...server('schemas', 'broken-schema-server.mjs'), ...server('malformed', 'malformed-result-server.mjs'), ''].join('\n'));

  const schemas = await runCli(['--profile', profile, '--yes', 'servers', 'test', 'schemas', '--all']);
  expect(schemas.stdout).toMatch(/pass\s+good .*\{\} → \{"n":1\}/);
  expect(schemas.stdout).toMatch(/FAIL\s+broken .*tool broken: its output schema cannot be used to check its results \(.+\), so it was not called/);
  // `calls` lists the calls that reached the server, made in the order listed: `broken`'s never did.
  expect(schemas.stdout).toMatch(/pass\s+calls .*\{\} → good\n/);
  expect(schemas.code).toBe(1);

  const malformed = await runCli(['--profile', profile, '--yes', 'servers', 'test', 'malformed', '--all']);
  expect(malformed.stdout).toMatch(/FAIL\s+bad_structure .*does not match the tool's declared output schema: .*result must be number/);
});
