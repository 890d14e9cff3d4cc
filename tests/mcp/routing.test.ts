// Tools are (server, name) pairs: two copies of server-memory offer the same names; calls land in the right copy.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { createSandbox, type ProcessSandbox } from '../../src/sandbox/create-sandbox.js';
import { renderToolCatalogue } from '../../src/sandbox/catalogue.js';
import type { SandboxResult } from '../../src/sandbox/types.js';
import { memoryServer } from './reference-servers.js';
import { runReply } from '../helpers/run-reply.js';

const LIMITS = { maxToolCalls: 5, timeoutMs: 10_000, memoryMb: 64, maxOutputChars: 100_000 };
const a = memoryServer('memory-a');
const b = memoryServer('memory-b');
let multi: MultiMcp;
let sandbox: ProcessSandbox;

beforeAll(async () => {
  multi = await MultiMcp.start([a, b]);
  sandbox = createSandbox();
});
afterAll(async () => {
  await sandbox?.close();
  await multi?.close();
});

function run(body: string): Promise<SandboxResult> {
  return runReply(sandbox, { code: `async function solve() {\n${body}\n}`, tools: multi.listTools(), caller: multi, limits: LIMITS });
}

describe('routing between servers that offer the same tool names', () => {
  it('offers each copy under <server>.<tool>, keeping the server and its own name', () => {
    const tools = multi.listTools();
    const create = tools.filter((t) => t.remoteName === 'create_entities');
    expect(create.map((t) => [t.name, t.server])).toEqual([
      ['memory-a.create_entities', 'memory-a'],
      ['memory-b.create_entities', 'memory-b'],
    ]);
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
    expect(multi.listTools(['memory-b']).every((t) => t.name.startsWith('memory-b.'))).toBe(true);
    expect(renderToolCatalogue(create)).toContain('tools["memory-a.create_entities"]({entities:');
  });

  it("sends each call to the server that owns it, and records that server", async () => {
    const result = await run(`
      await tools["memory-a.create_entities"]({ entities: [{ name: "Alice", entityType: "person", observations: ["lives in A"] }] });
      const inA = await tools["memory-a.read_graph"]();
      const inB = await tools["memory-b.read_graph"]();
      return JSON.stringify({ a: inA.entities.map((e) => e.name), b: inB.entities.map((e) => e.name) });`);
    expect(result).toMatchObject({ ok: true, value: '{"a":["Alice"],"b":[]}' });
    expect(result.calls.map((c) => [c.tool, c.server])).toEqual([
      ['memory-a.create_entities', 'memory-a'],
      ['memory-a.read_graph', 'memory-a'],
      ['memory-b.read_graph', 'memory-b'],
    ]);
    expect(readFileSync(a.file, 'utf8')).toContain('Alice');
    expect(() => readFileSync(b.file, 'utf8')).toThrow(/ENOENT/);
  });

  it('tells the model which names to use when it calls a shared name bare', async () => {
    const result = await run('return await tools.read_graph();');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.message).toContain('Tool "read_graph" is offered by several servers; call the one you mean: tools["memory-a.read_graph"] or tools["memory-b.read_graph"]');
  });

  it('calls a server directly by its id and the tool by its own name', async () => {
    const graph = await multi.callTool('memory-b', 'read_graph', {});
    expect(graph.structuredContent).toEqual({ entities: [], relations: [] });
  });
});
