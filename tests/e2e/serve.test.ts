import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtPath, PROJECT_ROOT } from '../../src/paths.js';
import { MAX_CONNECTIONS, MAX_CONNECTIONS_PER_ADDRESS } from '../../src/serve/cortex-server.js';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, MATH_SERVER_YAML, tempProject } from './ask-harness.js';
import { ask, jsonOf, ollamaEnv, parseSse, sessionOf, startPlanningLlm, startServe, stopQuestion, type ServeRun } from './serve-harness.js';

const TWO_STEP_QUESTION = 'Add the ASCII codes of AB';
/** A question with `HANG-<n>` gets no plan the first time a prompt carries that marker (later prompts may quote it from memory). */
const HANG = /HANG-\d+/;
const DOCUMENTS_PERCEPTION = JSON.stringify({ intent: 'look up', entities: ['Zephyr'], tool_hint: 'search_stored_documents', selected_servers: ['documents'] });
const SEARCH_PLAN = `async function solve() { const found = await tools.search_stored_documents({ query: "launch code Zephyr probe", k: 1 }); return "FINAL_ANSWER: " + found; }`;
/** Requests made while waiting for the server to notice something; each awaits a real answer, no timers. */
const MAX_POLLS = 2_000;

/** Sends one raw HTTP request on its own connection (fetch cannot set Host, nor announce a length it does not send). */
function rawRequest(url: string, options: { method?: string; path: string; headers?: Record<string, string | number>; body?: Buffer | string; chunks?: number }): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: options.method ?? 'POST', path: options.path, headers: options.headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (options.chunks) {
      // A chunked body (no length announced) of `chunks` pieces of 64 KB.
      for (let i = 0; i < options.chunks; i++) req.write(Buffer.alloc(65_536, 0x61));
      req.end();
    } else {
      req.end(options.body);
    }
  });
}

/** A connection from `localAddress` that sends nothing; resolves once it connected or was closed. */
function idleConnection(url: string, localAddress: string): Promise<{ close: () => void; closed: Promise<void> }> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    const handle = { close: () => socket.destroy(), closed };
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve(handle));
    socket.once('close', () => resolve(handle));
  });
}

/** Resolves once `count` of `promises` have settled. */
function settledCount(promises: Array<Promise<void>>, count: number): Promise<void> {
  let settled = 0;
  return new Promise((resolve) => {
    if (count <= 0) resolve();
    for (const p of promises) void p.then(() => ++settled === count && resolve());
  });
}

async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < MAX_POLLS; i++) {
    const value = await read();
    if (done(value)) return value;
  }
  throw new Error(`condition not reached after ${MAX_POLLS} requests`);
}

/** A result without what differs between two runs of the same plans: ids and times. */
const normalise = (json: any) => ({
  ...json,
  session_id: 'S',
  timings: 'T',
  steps: json.steps.map((s: any) => ({ ...s, tool_calls: s.tool_calls.map((c: any) => ({ ...c, ms: 'T' })) })),
});

describe('cortex serve (real MCP servers, sandbox and Ollama wire format)', () => {
  let llm: FakeLlmServer;
  let serve: ServeRun;
  let project: ReturnType<typeof tempProject>;
  const hanging: Array<() => void> = [];
  const hung = new Set<string>();
  let hangCount = 0;

  beforeAll(async () => {
    llm = await startPlanningLlm((prompt, stage) => {
      if (prompt.includes('Zephyr')) return ollamaChatReply(stage === 'perception' ? DOCUMENTS_PERCEPTION : fenced(SEARCH_PLAN));
      if (stage === 'perception') return undefined;
      const marker = HANG.exec(prompt)?.[0];
      if (marker === undefined || hung.has(marker)) return undefined;
      hung.add(marker);
      hanging.shift()?.();
      return { hang: true };
    });
    project = tempProject({
      extra: 'serve:\n  max_concurrent: 2\n  max_body_bytes: 65536\n  max_upload_bytes: 8192\n  allowed_origins: [http://localhost:3000]\n',
      servers: MATH_SERVER_YAML + `  - id: documents\n    script: ${builtPath('mcp-servers/documents/main.js')}\n    description: the user's documents\n`,
    });
    mkdirSync(project.documentsDir);
    serve = await startServe(project.profile, ollamaEnv(llm.url));
  });
  afterAll(async () => {
    expect(await serve?.stop()).toBe(0);
    await llm?.close();
  });

  /** Starts a streamed question whose plan never comes; resolves with its Stop once the LLM has it. */
  async function startHangingQuestion(body: Record<string, unknown> = {}): Promise<{ stop: () => Promise<Response>; response: Promise<Response> }> {
    const reached = new Promise<void>((resolve) => hanging.push(resolve));
    const response = ask(serve.url, { question: `HANG-${++hangCount} ${TWO_STEP_QUESTION}`, ...body });
    await reached;
    return { stop: async () => stopQuestion(serve.url, sessionOf(await response)), response };
  }
  const running = async () => ((await jsonOf(fetch(`${serve.url}/healthz`))) as { running: number }).running;

  it('streams every agent event of a two-step question, ending with the object `cortex ask --json` prints', async () => {
    const response = await ask(serve.url, { question: TWO_STEP_QUESTION });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // Streamed text arrives between a request's llm_start and llm_end, as many events as the model sends chunks.
    const events = parseSse(await response.text()).filter((e) => e.event !== 'llm_text');
    // Perception runs once per question; each step is then planned, run and judged.
    const attempt = ['planning', 'llm_start', 'llm_end', 'running', 'tool_call', 'tool_call', 'outcome'];
    expect(events.map((e) => e.event)).toEqual(['perceiving', 'llm_start', 'llm_end', 'perceived', ...attempt, ...attempt, 'result']);
    for (const e of events.slice(0, -1)) expect(e.data.type).toBe(e.event);
    expect(events.find((e) => e.event === 'tool_call')!.data).toMatchObject({ phase: 'start', record: { tool: 'strings_to_chars_to_int', args: { string: 'AB' } } });
    expect(events.find((e) => e.event === 'outcome')!.data).toMatchObject({ outcome: 'further_processing', detail: '[65,66]' });
    expect(events.find((e) => e.event === 'running')!.data.code).toContain('strings_to_chars_to_int');

    const result = events.at(-1)!.data;
    expect(result).toMatchObject({ status: 'answered', answer: '131' });
    const cli = resultOf(await runCli(['--profile', project.profile, '--json', 'ask', TWO_STEP_QUESTION], { env: ollamaEnv(llm.url) }));
    expect(normalise(result)).toEqual(normalise(cli));
  });

  it('answers with that object alone for Accept: application/json, and continues the session it names', async () => {
    const first = await jsonOf(ask(serve.url, { question: TWO_STEP_QUESTION }, { sse: false }));
    expect(first).toMatchObject({ status: 'answered', answer: '131' });
    const second = await ask(serve.url, { question: 'Again: add the ASCII codes of AB', session_id: first.session_id }, { sse: false });
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await jsonOf(second)).toMatchObject({ status: 'answered', session_id: first.session_id });

    const session = await jsonOf(fetch(`${serve.url}/v1/sessions/${first.session_id}`));
    const questions = session.items.filter((i: any) => i.type === 'run_metadata' && i.metadata.event === 'start').map((i: any) => i.text);
    expect(questions).toEqual([TWO_STEP_QUESTION, 'Again: add the ASCII codes of AB']);
    const listed = await jsonOf(fetch(`${serve.url}/v1/sessions`));
    expect(listed.sessions.map((s: { id: string }) => s.id)).toContain(first.session_id);
    expect((await fetch(`${serve.url}/v1/sessions/1700000000-abcdef`)).status).toBe(404);
    expect((await ask(serve.url, { question: 'x', session_id: '1700000000-abcdef' }, { sse: false })).status).toBe(404);
  });

  it('cancels a streamed question on Stop, and refuses a second question in a busy session with 409', async () => {
    const first = await jsonOf(ask(serve.url, { question: TWO_STEP_QUESTION }, { sse: false }));
    const { stop, response } = await startHangingQuestion({ session_id: first.session_id });
    for (const sse of [false, true]) {
      const busy = await ask(serve.url, { question: TWO_STEP_QUESTION, session_id: first.session_id }, { sse });
      expect(busy.status).toBe(409);
      expect((await jsonOf(busy)).error.code).toBe('session_busy');
    }
    expect((await stop()).status).toBe(200);
    expect(parseSse(await (await response).text()).at(-1)).toMatchObject({ event: 'result', data: { status: 'cancelled', session_id: first.session_id } });

    const items = await pollUntil(
      async () => (await jsonOf(fetch(`${serve.url}/v1/sessions/${first.session_id}`))).items as any[],
      (list) => list.some((i) => i.metadata?.status === 'cancelled'),
    );
    expect(items.filter((i) => i.metadata?.event === 'end').map((i) => i.metadata.status)).toEqual(['cancelled']);
    await pollUntil(running, (n) => n === 0);
    expect(await jsonOf(ask(serve.url, { question: TWO_STEP_QUESTION, session_id: first.session_id }, { sse: false }))).toMatchObject({ status: 'answered' });
  });

  it('answers questions side by side, and refuses one past max_concurrent with 429 and Retry-After', async () => {
    const both = await Promise.all([ask(serve.url, { question: TWO_STEP_QUESTION }), ask(serve.url, { question: TWO_STEP_QUESTION })]);
    const streams = await Promise.all(both.map(async (r) => parseSse(await r.text())));
    for (const events of streams) expect(events.at(-1)).toMatchObject({ event: 'result', data: { status: 'answered', answer: '131' } });
    expect(new Set(streams.map((events) => events.at(-1)!.data.session_id)).size).toBe(2);

    const held = [await startHangingQuestion(), await startHangingQuestion()];
    const refused = await ask(serve.url, { question: TWO_STEP_QUESTION });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect((await jsonOf(refused)).error.code).toBe('too_many_questions');
    for (const h of held) expect((await h.stop()).status).toBe(200);
    await pollUntil(running, (n) => n === 0);
  });

  it('refuses bad requests with a JSON error and stays up', async () => {
    const error = async (r: Response | Promise<Response>) => {
      const response = await r;
      return [response.status, ((await jsonOf(response)) as { error: { code: string } }).error.code];
    };
    expect(await error(ask(serve.url, '{"question": '))).toEqual([400, 'malformed_json']);
    expect(await error(ask(serve.url, {}))).toEqual([400, 'bad_request']);
    expect(await error(ask(serve.url, { question: '   ' }))).toEqual([400, 'bad_request']);
    expect(await error(ask(serve.url, { question: 'hi', colour: 'blue' }))).toEqual([400, 'bad_request']);
    expect(await error(ask(serve.url, [1, 2]))).toEqual([400, 'bad_request']);
    expect(await error(ask(serve.url, { question: 'hi', session_id: '../../etc/passwd' }))).toEqual([400, 'bad_session_id']);
    expect(await error(ask(serve.url, { question: 'hi', strategy: 'reckless' }))).toEqual([400, 'usage']);
    expect(await error(fetch(`${serve.url}/v1/ask`, { method: 'POST', body: 'question=hi', headers: { 'content-type': 'text/plain' } }))).toEqual([415, 'unsupported_media_type']);
    expect(await error(fetch(`${serve.url}/v1/ask`))).toEqual([405, 'method_not_allowed']);
    expect(await error(fetch(`${serve.url}/v1/nothing`))).toEqual([404, 'not_found']);

    const declared = await rawRequest(serve.url, { path: '/v1/ask', headers: { 'content-type': 'application/json', 'content-length': 100 * 2 ** 20 }, body: Buffer.alloc(65_536, 0x20) });
    expect([declared.status, JSON.parse(declared.body).error.code]).toEqual([413, 'body_too_large']);
    const chunked = await rawRequest(serve.url, { path: '/v1/ask', headers: { 'content-type': 'application/json' }, chunks: 4 });
    expect([chunked.status, JSON.parse(chunked.body).error.code]).toEqual([413, 'body_too_large']);

    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(
        Array.from({ length: 100 }, () => new Promise<void>((resolve) => {
          const socket = connect(Number(new URL(serve.url).port), '127.0.0.1', () => socket.destroy());
          socket.on('close', () => resolve());
          socket.on('error', () => resolve());
        })),
      );
    }
    expect(await jsonOf(ask(serve.url, { question: TWO_STEP_QUESTION }, { sse: false }))).toMatchObject({ status: 'answered' });
  });

  it('finishes a question whose client never reads its stream, without holding up others', async () => {
    const body = JSON.stringify({ question: TWO_STEP_QUESTION });
    const socket = connect(Number(new URL(serve.url).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.pause();
    socket.write(`POST /v1/ask HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    expect(await jsonOf(ask(serve.url, { question: TWO_STEP_QUESTION }, { sse: false }))).toMatchObject({ status: 'answered' });
    await pollUntil(running, (n) => n === 0);
    socket.destroy();
  });

  it('refuses requests from other origins unless configured, and host names other than loopback', async () => {
    const evil = await fetch(`${serve.url}/v1/servers`, { headers: { origin: 'http://evil.example' } });
    expect(evil.status).toBe(403);
    expect((await jsonOf(evil)).error.code).toBe('origin_refused');
    const allowed = await fetch(`${serve.url}/v1/servers`, { headers: { origin: 'http://localhost:3000' } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    const preflight = await fetch(`${serve.url}/v1/ask`, { method: 'OPTIONS', headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    const sameOrigin = await fetch(`${serve.url}/v1/servers`, { headers: { origin: serve.url } });
    expect(sameOrigin.status).toBe(200);
    const rebound = await rawRequest(serve.url, { method: 'GET', path: '/v1/servers', headers: { host: 'attacker.example:8765' } });
    expect(rebound.status).toBe(421);
  });

  it('indexes an uploaded document and answers a question about it', async () => {
    const upload = await fetch(`${serve.url}/v1/documents?name=${encodeURIComponent('launch notes.md')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: '# Launch notes\n\nThe launch code of the Zephyr probe is ZEBRA-42. It was chosen by the mission board.\n',
    });
    expect(upload.status).toBe(201);
    expect(await jsonOf(upload)).toMatchObject({ name: 'launch notes.md', chunks: 1 });
    const listed = await jsonOf(fetch(`${serve.url}/v1/documents`));
    expect(listed.documents.map((d: { name: string }) => d.name)).toContain('launch notes.md');

    const answer = await jsonOf(ask(serve.url, { question: 'What is the launch code of the Zephyr probe?' }, { sse: false }));
    expect(answer.status).toBe('answered');
    expect(answer.answer).toContain('ZEBRA-42');
    expect(answer.answer).toContain('[Source: launch notes.md');
  });

  it('writes uploads only into documents/, never through a symbolic link, and refuses bad ones', async () => {
    const outside = join(project.root, 'outside.md');
    writeFileSync(outside, 'untouched');
    symlinkSync(outside, join(project.documentsDir, 'link.md'));
    const post = (name: string, body: string | Buffer = 'some text') =>
      fetch(`${serve.url}/v1/documents?name=${encodeURIComponent(name)}`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } });

    for (const name of ['../escape.md', 'sub/escape.md', '..', '.hidden.md', 'x\u0000.md', 'report\u202Egnp.md', `${'é'.repeat(150)}.md`]) {
      const refused = await post(name);
      expect(refused.status).toBe(400);
      expect((await jsonOf(refused)).error.message).not.toContain(project.root);
    }
    // Neither a malformed escape nor a form-like request is a server error, nor writes a file.
    expect((await rawRequest(serve.url, { path: '/v1/documents?name=%E0%A4%A.md', headers: { 'content-type': 'application/octet-stream' }, body: 'x' })).status).toBe(400);
    expect((await rawRequest(serve.url, { method: 'GET', path: '/v1/sessions/%ZZ' })).status).toBe(400);
    expect((await rawRequest(serve.url, { path: '/v1/documents?name=plain.md', body: 'no type given' })).status).toBe(415);
    expect((await fetch(`${serve.url}/v1/documents?name=form.md`, { method: 'POST', body: 'a form' })).status).toBe(415);
    expect(existsSync(join(project.documentsDir, 'plain.md')) || existsSync(join(project.documentsDir, 'form.md'))).toBe(false);
    expect((await post('tool.exe')).status).toBe(415);
    expect((await post('big.md', Buffer.alloc(9_000, 0x61))).status).toBe(413);
    expect(existsSync(join(project.root, 'escape.md'))).toBe(false);
    expect(existsSync(join(project.documentsDir, 'big.md'))).toBe(false);

    expect((await post('link.md', '# Linked\n\nReplaced by an upload.\n')).status).toBe(201);
    expect(readFileSync(outside, 'utf8')).toBe('untouched');
    expect(lstatSync(join(project.documentsDir, 'link.md')).isFile()).toBe(true);
  });

  it('keeps the previous file and its index exactly as they were when an upload cannot be read', async () => {
    const post = (name: string, body: string | Buffer) =>
      fetch(`${serve.url}/v1/documents?name=${encodeURIComponent(name)}`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } });
    const good = readFileSync(join(PROJECT_ROOT, 'tests', 'fixtures', 'docs', 'two-pages.pdf'));
    expect((await post('brief.pdf', good)).status).toBe(201);
    const indexDir = join(project.root, 'faiss_index');
    const snapshot = () => Object.fromEntries(readdirSync(indexDir).sort().map((f) => [f, readFileSync(join(indexDir, f)).toString('base64')]));
    const before = snapshot();

    const refused = await post('brief.pdf', 'this is not a PDF at all');
    expect(refused.status).toBe(422);
    const { error } = await jsonOf(refused);
    expect(error.code).toBe('unreadable_document');
    // The reason names the person's file, never the temp file it was read from.
    expect(error.message).toMatch(/^brief\.pdf could not be read/);
    expect(error.message).not.toContain('.cortex-tmp-');
    expect(readFileSync(join(project.documentsDir, 'brief.pdf')).equals(good)).toBe(true);
    expect(snapshot()).toEqual(before);
    expect(readdirSync(project.documentsDir).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('stores the NFC and NFD spellings and the case variants of a name as one file', async () => {
    const post = (name: string, body: string) =>
      fetch(`${serve.url}/v1/documents?name=${encodeURIComponent(name)}`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' } });
    const nfd = 'Cafe\u0301 menu.md';
    expect(await jsonOf(post(nfd, '# Menu\n\nCoffee.\n'))).toMatchObject({ name: 'Caf\u00e9 menu.md' });
    expect(await jsonOf(post('caf\u00c9 MENU.md', '# Menu\n\nTea.\n'))).toMatchObject({ name: 'Caf\u00e9 menu.md' });
    const names = readdirSync(project.documentsDir).filter((f) => f.toLowerCase().includes('menu'));
    expect(names).toEqual(['Caf\u00e9 menu.md']);
    expect(readFileSync(join(project.documentsDir, names[0]!), 'utf8')).toContain('Tea.');
  });
});

describe('cortex serve access rules', () => {
  it('refuses to serve beyond loopback without CORTEX_API_TOKEN, or with one too short to guess', async () => {
    const { profile } = tempProject();
    const env = { ...process.env };
    delete env.CORTEX_API_TOKEN;
    const run = await runCli(['--profile', profile, 'serve', '--host', '0.0.0.0', '--port', '0'], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/CORTEX_API_TOKEN/);
    const short = await runCli(['--profile', profile, 'serve', '--host', '0.0.0.0', '--port', '0'], { env: { ...env, CORTEX_API_TOKEN: 'x' } });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/CORTEX_API_TOKEN is 1 characters; use at least 16/);
  });

  it('asks for the bearer token on every API call when bound beyond loopback', async () => {
    const llm = await startPlanningLlm();
    const { profile } = tempProject();
    const token = 'sesame-123-open-4567';
    const serve = await startServe(profile, { ...ollamaEnv(llm.url), CORTEX_API_TOKEN: token }, ['--host', '0.0.0.0']);
    try {
      const url = serve.url.replace('0.0.0.0', '127.0.0.1');
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const none = await fetch(`${url}/v1/servers`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      expect((await fetch(`${url}/v1/servers`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await ask(url, { question: TWO_STEP_QUESTION }, { sse: false })).status).toBe(401);
      const answered = await ask(url, { question: TWO_STEP_QUESTION }, { sse: false, headers: { authorization: `Bearer ${token}` } });
      expect(await jsonOf(answered)).toMatchObject({ status: 'answered', answer: '131' });
      // A token sent in the query string is refused, and not written to the request log either.
      expect((await fetch(`${url}/v1/servers?token=${token}`)).status).toBe(401);
      await pollUntil(async () => (await fetch(`${url}/healthz`), serve.stderr()), (log) => log.includes('/v1/servers?token=[hidden] 401'));
      expect(serve.stderr()).not.toContain(token);

      // One client holding idle connections (here from 127.0.0.2) cannot lock out another, token or not.
      const idle = await Promise.all(Array.from({ length: MAX_CONNECTIONS + 8 }, () => idleConnection(url, '127.0.0.2')));
      try {
        // The server closes every connection of that client past its share.
        await settledCount(idle.map((c) => c.closed), idle.length - MAX_CONNECTIONS_PER_ADDRESS);
        // On a new connection: fetch would reuse one it opened before.
        expect((await rawRequest(url, { method: 'GET', path: '/v1/servers', headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      } finally {
        for (const s of idle) s.close();
      }
    } finally {
      expect(await serve.stop()).toBe(0);
      await llm.close();
    }
  });
});
