// Starts the built `cortex serve` (or `cortex mcp`) as a user would, against a temp project and a fake LLM.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
import { startFakeOllamaServer, ollamaChatReply, type FakeLlmServer, type FakeReply, type RecordedRequest } from '../helpers/fake-ollama-server.js';
import { PERCEPTION_JSON, fenced, isPerception, ollamaEnv, promptOf } from './ask-harness.js';

/** A running `cortex serve`. */
export interface ServeRun {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM, then resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `cortex --profile <profile> serve --port 0 [args]`; resolves once it prints its URL, rejects if it exits first. */
export function startServe(profile: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<ServeRun> {
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', profile, 'serve', '--port', '0', ...args], {
    cwd: PROJECT_ROOT,
    env: { ...env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const match = /serving on (http:\/\/\S+?)\/? /.exec(stdout);
      if (match) {
        resolve({
          url: match[1]!,
          child,
          stderr: () => stderr,
          stop: () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`cortex serve exited with ${code} before listening:\n${stdout}\n${stderr}`)));
  });
}

/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: any;
}

/** Parses a whole SSE body into its events. */
export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim())
    .map((frame) => {
      const lines = frame.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
      return { event, data: JSON.parse(data) };
    });
}

/** Reads a streamed answer's events until `until` holds for one; returns them all so far and the reader to go on. */
export async function eventsUntil(response: Response, until: (event: SseEvent) => boolean) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended first:\n${text}`);
    text += value;
    const end = text.lastIndexOf('\n\n');
    // Only whole frames are parsed: a chunk may end mid-frame.
    const events = end < 0 ? [] : parseSse(text.slice(0, end + 2));
    if (events.some(until)) {
      const rest = async (): Promise<SseEvent[]> => {
        for (;;) {
          const next = await reader.read();
          if (next.done) return parseSse(text);
          text += next.value;
        }
      };
      return { events, rest };
    }
  }
}

/** POSTs a question to /v1/ask. */
export function ask(url: string, body: unknown, { sse = true, headers = {}, signal }: { sse?: boolean; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
  return fetch(`${url}/v1/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: sse ? 'text/event-stream' : 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** The session a streamed answer runs in, named by its response header. */
export function sessionOf(response: Response): string {
  const id = response.headers.get('cortex-session-id');
  if (!id) throw new Error(`no cortex-session-id header (status ${response.status})`);
  return id;
}

/** Stop: cancels the question running in `session` (POST /v1/sessions/{id}/stop). */
export function stopQuestion(url: string, session: string): Promise<Response> {
  return fetch(`${url}/v1/sessions/${session}/stop`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
}

/** Joins the question running in `session` as another viewer (GET /v1/sessions/{id}/live). */
export function joinQuestion(url: string, session: string, { signal }: { signal?: AbortSignal } = {}): Promise<Response> {
  return fetch(`${url}/v1/sessions/${session}/live`, { headers: { accept: 'text/event-stream' }, ...(signal ? { signal } : {}) });
}

/** A response's JSON body, untyped (tests check it with matchers). */
export async function jsonOf(response: Response | Promise<Response>): Promise<any> {
  return (await response).json();
}

/** The plan of each step of "Add the ASCII codes of AB": codes first, then their sum. */
export const TWO_STEP_PLANS = {
  first: `async function solve() { const c = await tools.strings_to_chars_to_int({ string: "AB" }); return "FURTHER_PROCESSING_REQUIRED: " + JSON.stringify(c); }`,
  second: `async function solve() { return "FINAL_ANSWER: " + await tools.add({ a: 65, b: 66 }); }`,
};

/**
 * A fake Ollama for questions running side by side: perception picks math; a decision answers by its prompt
 * (the second step's prompt carries the first step's result [65,66]). `special` may answer some prompts
 * otherwise (another plan, or `{hang: true}`).
 */
export async function startPlanningLlm(special?: (prompt: string, stage: 'perception' | 'decision') => FakeReply | Promise<FakeReply> | undefined): Promise<FakeLlmServer> {
  return startFakeOllamaServer({
    replies: (req: RecordedRequest) => {
      if (req.path !== '/api/chat') return undefined;
      const prompt = promptOf(req);
      const stage = isPerception(req) ? 'perception' : 'decision';
      const reply = special?.(prompt, stage);
      if (reply) return reply;
      if (stage === 'perception') return ollamaChatReply(PERCEPTION_JSON);
      return ollamaChatReply(fenced(prompt.includes('[65,66]') ? TWO_STEP_PLANS.second : TWO_STEP_PLANS.first));
    },
  });
}

export { ollamaEnv };
