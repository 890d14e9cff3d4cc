// What the CLI benchmarks share: an Ollama-speaking server that answers at once, a bench environment and profile
// paths, and a timed run of the built CLI.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';

/** Perception's answer: the math server. */
const PERCEPTION = JSON.stringify({ intent: 'add', entities: [], tool_hint: 'add', selected_servers: ['math'] });

/** What a bench's fake model does beyond answering at once. */
export interface InstantLlmOptions {
  /** Each chat answer takes this long, streamed in two halves (a model that takes its time; default 0, at once). */
  delayMs?: number;
  /** The servers perception selects; default the math server. */
  selectedServers?: () => string[];
  /** Sees each decision (non-perception) request: its prompt, and the num_ctx the client sent. */
  onDecision?: (prompt: string, numCtx: number | undefined) => void;
  /** Answers /api/tags and /api/show as a pulled qwen2.5-coder:7b with a 32k context would; default false. */
  modelInfo?: boolean;
}

/**
 * Starts a server speaking Ollama's chat API on a free loopback port: perception requests (JSON mode) get
 * the math server (or `selectedServers()`), every other request gets `planFor(prompt)`, the prompt being the
 * request's messages joined.
 */
export function startInstantLlm(planFor: (prompt: string) => string, { delayMs = 0, selectedServers, onDecision, modelInfo = false }: InstantLlmOptions = {}): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/api/version') return res.end('{"version":"0.0.0"}');
      if (modelInfo && req.url === '/api/tags') return res.end('{"models":[{"name":"qwen2.5-coder:7b"}]}');
      if (modelInfo && req.url === '/api/show') return res.end('{"model_info":{"general.architecture":"qwen2","qwen2.context_length":32768}}');
      const request = JSON.parse(body || '{}') as { format?: unknown; messages?: Array<{ content: string }>; options?: { num_ctx?: number } };
      let content: string;
      if (request.format) content = selectedServers ? JSON.stringify({ ...JSON.parse(PERCEPTION), selected_servers: selectedServers() }) : PERCEPTION;
      else {
        const prompt = (request.messages ?? []).map((m) => m.content).join('\n');
        onDecision?.(prompt, request.options?.num_ctx);
        content = planFor(prompt);
      }
      const line = (text: string, done: boolean) => `${JSON.stringify({ model: 'instant', created_at: new Date().toISOString(), message: { role: 'assistant', content: text }, done, ...(done ? { prompt_eval_count: 10, eval_count: 10 } : {}) })}\n`;
      if (delayMs > 0 && req.url === '/api/chat') {
        // As a model streams: the first half of the answer halfway through, the rest at the end.
        const half = Math.floor(content.length / 2);
        setTimeout(() => res.write(line(content.slice(0, half), false)), delayMs / 2);
        setTimeout(() => res.end(line(content.slice(half), true)), delayMs);
      } else res.end(line(content, true));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

/** The environment CLI runs get: no colours, and no Gemini key, so only the instant LLM can answer. */
export function benchEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.GEMINI_API_KEY;
  delete env.GOOGLE_API_KEY;
  return env;
}

/** A profile's `paths:` section keeping memory, documents and the index under `root`. */
export function pathsYaml(root: string): string {
  return `paths:\n  memory: ${join(root, 'memory')}\n  documents: ${join(root, 'documents')}\n  faiss_index: ${join(root, 'faiss_index')}\n`;
}

/** Runs `bin/cortex.js` with `args`, killed past `timeoutMs`; resolves with its wall time, stdout and exit code. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ ms: number; stdout: string; code: number | null }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'cortex.js'), ...args], { env, timeout: timeoutMs, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - started, stdout, code }));
  });
}

/** Runs `node ARGS` (e.g. `-e 0`, the floor a CLI run is compared with) and resolves with its wall time in ms. */
export function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - started));
  });
}
