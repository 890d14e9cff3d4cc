// Every content type reaches solve(): server-everything's text, image, resource, link, structured, annotated, error and slow tools.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { createSandbox, type ProcessSandbox } from '../../src/sandbox/create-sandbox.js';
import { renderToolCatalogue } from '../../src/sandbox/catalogue.js';
import type { SandboxLimits, SandboxResult } from '../../src/sandbox/types.js';
import { everythingServer } from './reference-servers.js';
import { runReply } from '../helpers/run-reply.js';

const LIMITS: SandboxLimits = { maxToolCalls: 5, timeoutMs: 10_000, memoryMb: 64, maxOutputChars: 100_000 };
let multi: MultiMcp;
let sandbox: ProcessSandbox;

beforeAll(async () => {
  multi = await MultiMcp.start([everythingServer()]);
  sandbox = createSandbox();
});
afterAll(async () => {
  await sandbox?.close();
  await multi?.close();
});

/** Runs `body` as solve() and returns what it returned, parsed (solve returns JSON.stringify(...)). */
async function solve(body: string, limits: Partial<SandboxLimits> = {}): Promise<{ value: any; result: SandboxResult }> {
  const result = await runReply(sandbox, { code: `async function solve() {\n${body}\n}`, tools: multi.listTools(), caller: multi, limits: { ...LIMITS, ...limits } });
  return { value: result.ok ? JSON.parse(result.value) : undefined, result };
}

describe('what tools.x() returns, with server-everything', () => {
  it('gives plain text as the text', async () => {
    const { value } = await solve('return JSON.stringify(await tools.echo({ message: "hi" }));');
    expect(value).toBe('Echo: hi');
  });

  it('gives structured content as the object, typed by the output schema in the catalogue', async () => {
    const { value } = await solve('return JSON.stringify(await tools["get-structured-content"]({ location: "Chicago" }));');
    expect(value).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
    const line = renderToolCatalogue(multi.listTools()).split('\n').find((l) => l.startsWith('tools["get-structured-content"]'));
    expect(line).toContain('Promise<{temperature: number, conditions: string, humidity: number}>');
  });

  it('gives an image as {mimeType, bytes, data} beside the text', async () => {
    const { value } = await solve('const r = await tools["get-tiny-image"](); return JSON.stringify(r);');
    expect(value.text).toBe("Here's the image you requested:\nThe image above is the MCP logo.");
    expect(value.images).toHaveLength(1);
    const image = value.images[0];
    expect(image.mimeType).toBe('image/png');
    const png = Buffer.from(image.data, 'base64');
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(image.bytes).toBe(png.length);
  });

  it('gives an embedded resource with its text, a blob of text decoded', async () => {
    const { value } = await solve(`
      const text = await tools["get-resource-reference"]({ resourceType: "Text", resourceId: 1 });
      const blob = await tools["get-resource-reference"]({ resourceType: "Blob", resourceId: 2 });
      return JSON.stringify([text.resources, blob.resources]);`);
    expect(value[0]).toEqual([{ uri: 'demo://resource/dynamic/text/1', mimeType: 'text/plain', text: expect.stringMatching(/^Resource 1: This is a plaintext resource/) }]);
    expect(value[1]).toEqual([{ uri: 'demo://resource/dynamic/blob/2', mimeType: 'text/plain', text: expect.stringMatching(/^Resource 2: This is a base64 blob/) }]);
  });

  it('gives resource links, and mcp.read_resource reads one on the server that sent it, within the call cap', async () => {
    const { value, result } = await solve(`
      const r = await tools["get-resource-links"]({ count: 2 });
      const first = await mcp.read_resource(r.links[1].uri);
      let refused = "";
      try { await mcp.read_resource(r.links[0].uri); } catch (e) { refused = e.message; }
      return JSON.stringify({ links: r.links, first, refused });`, { maxToolCalls: 2 });
    expect(value.links).toEqual([
      { uri: 'demo://resource/dynamic/blob/1', name: 'Blob Resource 1', description: 'Resource 1: plaintext resource', mimeType: 'text/plain' },
      { uri: 'demo://resource/dynamic/text/2', name: 'Text Resource 2', description: 'Resource 2: plaintext resource', mimeType: 'text/plain' },
    ]);
    expect(value.first).toEqual({ uri: 'demo://resource/dynamic/text/2', mimeType: 'text/plain', text: expect.stringMatching(/^Resource 2: /) });
    expect(value.refused).toMatch(/Tool-call limit reached: a plan may make at most 2 tool calls \(mcp.read_resource counts as one\)/);
    expect(result.calls.map((c) => [c.tool, c.server ?? null, c.ok])).toEqual([
      ['get-resource-links', 'everything', true],
      ['mcp.read_resource', 'everything', true],
      ['mcp.read_resource', null, false],
    ]);
  });

  it('keeps the annotations of each part', async () => {
    const { value } = await solve('return JSON.stringify(await tools["get-annotated-message"]({ messageType: "error", includeImage: true }));');
    expect(value.texts).toEqual([{ text: 'Error: Operation failed', annotations: { priority: 1, audience: ['user', 'assistant'] } }]);
    expect(value.images[0]).toMatchObject({ mimeType: 'image/png', annotations: { priority: 0.5, audience: ['user'] } });
  });

  it('rejects with the server message when the tool fails, and hands mcp.call_tool the raw result', async () => {
    const { value } = await solve(`
      let message = "";
      try { await tools["get-resource-reference"]({ resourceType: "Text", resourceId: 0 }); } catch (e) { message = e.message; }
      const raw = await mcp.call_tool("echo", { message: "raw" });
      const text = raw.content.filter((c) => c.type === "text").map((c) => c.text).join("\\n");
      return JSON.stringify({ message, isError: raw.isError ?? false, text });`);
    expect(value.message).toMatch(/Tool get-resource-reference failed: .*resourceId/);
    expect(value).toMatchObject({ isError: false, text: 'Echo: raw' });
  });

  it('ends a slow call at its own time limit and the server serves the next one', async () => {
    const { value, result } = await solve(`
      let message = "";
      try { await tools["trigger-long-running-operation"]({ duration: 30, steps: 3 }); } catch (e) { message = e.message; }
      return JSON.stringify({ message, next: await tools.echo({ message: "after" }) });`, { toolTimeoutMs: 300 });
    expect(value).toEqual({ message: 'Tool trigger-long-running-operation failed: it did not answer within 300 ms', next: 'Echo: after' });
    expect(result.calls[0]).toMatchObject({ server: 'everything', ok: false });
  });
});
