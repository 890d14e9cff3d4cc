// Traces through the built CLI: with OTEL_EXPORTER_OTLP_ENDPOINT set, spans reach a local OTLP/HTTP collector and MCP calls carry traceparent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception, ollamaEnv, tempProject } from './ask-harness.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
  status?: { code?: number };
}

/** A local OTLP/HTTP collector (JSON): every span posted to /v1/traces. */
async function startCollector(): Promise<{ url: string; spans: OtlpSpan[]; paths: string[]; close: () => Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const json = JSON.parse(body || '{}') as { resourceSpans?: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const r of json.resourceSpans ?? []) for (const s of r.scopeSpans) spans.push(...s.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans, paths, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A span's attributes as a plain object (OTLP JSON sends 64-bit integers as strings). */
function attrs(span: OtlpSpan): Record<string, string | number> {
  return Object.fromEntries(span.attributes.map((a) => [a.key, a.value.stringValue ?? Number(a.value.intValue)]));
}

const SERVERS = `  - id: tracer\n    command: ${process.execPath}\n    args: [${JSON.stringify(join(PROJECT_ROOT, 'tests/fixtures/trace-echo-server.mjs'))}]\n    description: Echoes trace context\n`;

let llm: FakeLlmServer | undefined;
let collector: Awaited<ReturnType<typeof startCollector>> | undefined;
afterEach(async () => {
  await llm?.close();
  await collector?.close();
  llm = collector = undefined;
});

async function tracerModel(): Promise<FakeLlmServer> {
  llm = await startFakeOllamaServer({
    replies: (req) => {
      if (req.path !== '/api/chat') return undefined;
      if (isPerception(req)) return ollamaChatReply(JSON.stringify({ intent: 'trace', entities: [], tool_hint: '', selected_servers: ['tracer'] }), { promptTokens: 120, completionTokens: 9 });
      return ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: " + (await tools.whoami({})); }'), { promptTokens: 300, completionTokens: 25 });
    },
  });
  return llm;
}

describe('traces', () => {
  it('exports spans for the question, its step, each LLM call (gen_ai.*) and the tool call, and passes traceparent to the server', async () => {
    const model = await tracerModel();
    collector = await startCollector();
    const { profile } = tempProject({ servers: SERVERS });
    const run = await runCli(['--profile', profile, '--json', 'ask', 'Who am I?'], { env: { ...ollamaEnv(model.url), OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });
    const result = resultOf(run);
    expect(result.status).toBe('answered');
    expect(collector.paths[0]).toMatch(/^POST \/v1\/traces application\/json/);

    const byName = (name: string) => collector!.spans.filter((s) => s.name === name);
    const [question] = byName('invoke_agent cortex-r');
    const [step] = byName('step 1');
    const llmCalls = collector.spans.filter((s) => attrs(s)['gen_ai.operation.name'] === 'chat');
    const [tool] = byName('execute_tool whoami');
    expect(attrs(question!)).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': result.session_id, 'cortex.status': 'answered' });
    expect(attrs(step!)).toMatchObject({ 'cortex.step': 1, 'cortex.attempts': 1, 'cortex.outcome': 'final_answer' });
    expect(llmCalls.map(attrs)).toEqual([
      expect.objectContaining({ 'cortex.stage': 'perception', 'gen_ai.request.model': 'qwen2.5-coder:7b', 'gen_ai.usage.input_tokens': 120, 'gen_ai.usage.output_tokens': 9 }),
      expect.objectContaining({ 'cortex.stage': 'decision', 'gen_ai.request.model': 'qwen2.5-coder:7b', 'gen_ai.usage.input_tokens': 300, 'gen_ai.usage.output_tokens': 25 }),
    ]);
    expect(attrs(tool!)).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'whoami', 'cortex.tool.server': 'tracer', 'cortex.tool.outcome': 'ok' });
    // One trace; the step under the question, the plan's LLM call and the tool call under the step.
    expect(new Set(collector.spans.map((s) => s.traceId)).size).toBe(1);
    expect(step!.parentSpanId).toBe(question!.spanId);
    expect(llmCalls[1]!.parentSpanId).toBe(step!.spanId);
    expect(tool!.parentSpanId).toBe(step!.spanId);
    // The server got the tool span's W3C trace context in the request's _meta.
    expect(result.answer).toBe(`00-${tool!.traceId}-${tool!.spanId}-01`);
  });

  it('exports nothing and sends no trace context when no OTLP endpoint is set', async () => {
    const model = await tracerModel();
    collector = await startCollector();
    const { profile } = tempProject({ servers: SERVERS });
    const env = { ...ollamaEnv(model.url) };
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    const result = resultOf(await runCli(['--profile', profile, '--json', 'ask', 'Who am I?'], { env }));
    expect(result.answer).toBe('none');
    expect(collector.paths).toEqual([]);
  });
});
