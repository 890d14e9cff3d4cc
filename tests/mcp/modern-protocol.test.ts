// What the client sends a 2026-07-28 server beyond the call itself: Mcp-Param headers, trace context, and lists kept as long as the server says.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { ToolCache } from '../../src/mcp/tool-cache.js';
import { httpSpec } from './http-fixture.js';
import { startModernFixture, type ModernFixture } from './modern-fixture.js';

let fixture: ModernFixture | undefined;
let multi: MultiMcp | undefined;
afterEach(async () => {
  await multi?.close();
  await fixture?.close();
  multi = fixture = undefined;
});

const text = (r: { content: Array<{ text?: string }> }) => r.content[0]!.text;

/** A weather server whose `region` argument is routed on by the gateway in front of it (SEP-2243 `x-mcp-header`). */
const weather = (cacheHints: { 'tools/list'?: { ttlMs: number } } = {}, version = () => '1.0.0') => () => {
  const server = new McpServer({ name: 'weather', version: version() }, { capabilities: { tools: {} }, cacheHints });
  server.registerTool(
    'forecast',
    { description: 'Forecast for a region', inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), days: z.number() }) },
    ({ region, days }, ctx) => ({ content: [{ type: 'text', text: JSON.stringify({ region, days, trace: ctx.mcpReq._meta?.traceparent ?? null }) }] }),
  );
  return server;
};

describe('a 2026-07-28 server over Streamable HTTP', () => {
  it('gets the x-mcp-header arguments of a call mirrored in Mcp-Param headers, and no others', async () => {
    fixture = await startModernFixture(weather());
    multi = await MultiMcp.start([httpSpec('weather', fixture.url)]);
    expect(multi.statuses()[0]).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
    const res = await multi.callTool('weather', 'forecast', { region: 'us-west1', days: 3 });
    expect(JSON.parse(text(res)!)).toMatchObject({ region: 'us-west1', days: 3 });
    const call = fixture.seen.find((r) => r.method === 'tools/call')!;
    expect(call.headers['mcp-param-region']).toBe('us-west1');
    expect(Object.keys(call.headers).filter((h) => h.startsWith('mcp-param-'))).toEqual(['mcp-param-region']);
  });

  it('gets the trace context of a traced question in the call\'s _meta', async () => {
    fixture = await startModernFixture(weather());
    multi = await MultiMcp.start([httpSpec('weather', fixture.url)]);
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const res = await multi.callTool('weather', 'forecast', { region: 'eu', days: 1 }, { meta: { traceparent } });
    expect(JSON.parse(text(res)!).trace).toBe(traceparent);
  });

  it('is not asked for its tool list again while the list it gave is fresh, and is asked once it is stale', async () => {
    fixture = await startModernFixture(weather({ 'tools/list': { ttlMs: 60_000 } }));
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-ttl-')), 'mcp-tools.json');
    let clock = 1_000_000;
    const run = async () => {
      multi = await MultiMcp.start([httpSpec('weather', fixture!.url)], { cache: await ToolCache.load(file), now: () => clock });
      const res = await multi.callTool('weather', 'forecast', { region: 'eu', days: 2 });
      await multi.close();
      multi = undefined;
      return JSON.parse(text(res)!);
    };
    expect(await run()).toMatchObject({ region: 'eu' });
    expect(fixture.count('tools/list')).toBe(1);
    clock += 59_000;
    // The next run, within the minute: the tools come from the cache, and the call still carries its Mcp-Param header.
    expect(await run()).toMatchObject({ region: 'eu' });
    expect(fixture.count('tools/list')).toBe(1);
    expect(fixture.seen.filter((r) => r.method === 'tools/call').at(-1)!.headers['mcp-param-region']).toBe('eu');
    clock += 2_000;
    await run();
    expect(fixture.count('tools/list')).toBe(2);
  });

  it('lists again within the lifetime when the server was upgraded meanwhile', async () => {
    let version = '1.0.0';
    fixture = await startModernFixture(weather({ 'tools/list': { ttlMs: 60_000 } }, () => version));
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-ttl-')), 'mcp-tools.json');
    for (const v of ['1.0.0', '2.0.0']) {
      version = v;
      multi = await MultiMcp.start([httpSpec('weather', fixture.url)], { cache: await ToolCache.load(file), now: () => 0 });
      await multi.close();
    }
    multi = undefined;
    expect(fixture.count('tools/list')).toBe(2);
  });

  it('lists again at every start when the server gives its list no lifetime', async () => {
    fixture = await startModernFixture(weather());
    const file = join(mkdtempSync(join(tmpdir(), 'cortex-ttl-')), 'mcp-tools.json');
    for (let i = 0; i < 2; i++) {
      multi = await MultiMcp.start([httpSpec('weather', fixture.url)], { cache: await ToolCache.load(file), now: () => 0 });
      await multi.close();
    }
    multi = undefined;
    expect(fixture.count('tools/list')).toBe(2);
  });
});
