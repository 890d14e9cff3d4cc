// A 2025 server with one tool whose output schema cannot be compiled: its other tools are listed and work, and that
// tool's calls fail before they are sent (what SDK v2 does for 2026 servers, SEP-2106), naming the tool.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '../../src/errors.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { PROJECT_ROOT } from '../../src/paths.js';

describe('a real stdio server with a broken output schema on one tool', () => {
  let multi: MultiMcp;
  beforeAll(async () => {
    multi = await MultiMcp.start([
      { id: 'schemas', command: process.execPath, args: [join(PROJECT_ROOT, 'tests', 'fixtures', 'broken-schema-server.mjs')], cwd: PROJECT_ROOT, env: {}, description: '', capabilities: [] },
    ]);
  });
  afterAll(() => multi.close());

  const text = (result: unknown) => (result as { content: Array<{ text: string }> }).content.map((c) => c.text).join('');

  it('lists every tool of the server', () => {
    expect(multi.listTools().map((t) => t.name).sort()).toEqual(['broken', 'calls', 'good']);
  });

  it('calls a tool whose schema compiles, and checks its result against it', async () => {
    const result = (await multi.callTool('schemas', 'good', {}, { timeoutMs: 10_000 })) as { structuredContent?: unknown };
    expect(result.structuredContent).toEqual({ n: 1 });
  });

  it('does not send a call to the tool whose schema cannot be compiled, and says why in one line', async () => {
    const error = await multi.callTool('schemas', 'broken', {}, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as Error).message).toMatch(/^MCP server "schemas": tool broken: its output schema cannot be used to check its results \(.+\), so it was not called$/);
    expect((error as Error).message).not.toContain('\n');
    expect(text(await multi.callTool('schemas', 'calls', {}, { timeoutMs: 10_000 }))).not.toContain('broken');
  });
});
