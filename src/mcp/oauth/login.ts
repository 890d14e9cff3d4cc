// `cortex servers login ID`: sign in to a remote server once, in a browser, through a loopback redirect.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { ServerSpec } from '../../config/server-spec.js';
import { McpError, errorMessage } from '../../errors.js';
import { oauthProviderFor, StoredProvider } from './provider.js';
import type { OAuthStore } from './store.js';
import { VERSION } from '../../version.js';

/** How long the browser may take to come back with a code; a person signing in needs minutes, not hours. */
const LOGIN_TIMEOUT_MS = 5 * 60_000;
/** Callback requests kept while nobody waits yet; more are strays. */
const MAX_EARLY_ANSWERS = 8;
/** Path of the loopback redirect. */
const CALLBACK_PATH = '/callback';

/** What login needs from the command: how to send the person to a URL, and how to tell them things. */
export interface LoginIo {
  /** Opens the authorization page (openBrowser in the CLI). */
  open(url: string): void | Promise<void>;
  /** One line for the person (the URL, in case no browser opens). */
  say(line: string): void;
  /**
   * Reads a line the person pastes: the address the browser ended on, for a browser on another machine (where
   * the loopback redirect cannot arrive). Resolves null when the input ends. Absent: only the redirect is awaited.
   */
  readPasted?(signal: AbortSignal): Promise<string | null>;
  signal?: AbortSignal;
}

/** Pasted lines read before giving up on the paste (the redirect may still come). */
const MAX_PASTED_LINES = 5;

/**
 * Signs in to `spec` (a remote server) and stores its tokens. client_credentials entries get a token at once;
 * others go through the browser: discovery, dynamic registration when no client is configured, PKCE, then the code
 * is exchanged. Throws McpError saying what failed.
 */
export async function login(spec: ServerSpec, store: OAuthStore, io: LoginIo): Promise<void> {
  if (!spec.url) throw new McpError(spec.id, 'is not a remote server; only http and sse servers sign in');
  const serverUrl = spec.url;
  if (spec.oauth?.grantType === 'client_credentials') {
    await run(spec, () => auth(oauthProviderFor(spec, store), { serverUrl }));
    return;
  }
  const callback = await listen(spec.oauth?.callbackPort ?? 0);
  try {
    const redirectUrl = `http://127.0.0.1:${(callback.server.address() as AddressInfo).port}${CALLBACK_PATH}`;
    // A fresh sign-in: tokens and a client registered for another redirect are dropped (discovery is redone below).
    const wanted = store.load(serverUrl).scope;
    store.remove(serverUrl);
    // The server's 401 says where its metadata is and which scope it wants (RFC 9728 WWW-Authenticate).
    const challenge = await challengeOf(serverUrl);
    const provider = new StoredProvider(spec, store, {
      redirectUrl,
      openAuthorization: async (url) => {
        io.say(`Opening your browser to sign in to "${spec.id}". If it does not open, visit:\n  ${url.href}`);
        await io.open(url.href);
      },
    });
    const scope = spec.oauth?.scope ?? wanted ?? challenge.scope;
    const where = { serverUrl, ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}) };
    const first = await run(spec, () => auth(provider, { ...where, ...(scope ? { scope } : {}) }));
    if (first === 'AUTHORIZED') return;
    const pasting = new AbortController();
    if (io.readPasted) {
      io.say('If your browser is on another machine: sign in there, then paste here the address it ends on (http://127.0.0.1:…/callback?code=…).');
      void readPastedAnswers(io.readPasted, callback.offer, pasting.signal);
    }
    const answer = await run(spec, () => callback.code(provider.expectedState, io.signal)).finally(() => pasting.abort());
    checkIssuer(spec, answer.iss, store.load(serverUrl).discovery?.authorizationServerMetadata);
    await run(spec, () => auth(provider, { ...where, authorizationCode: answer.code }));
  } finally {
    callback.server.closeAllConnections();
    callback.server.close();
  }
}

/** How long the unauthenticated probe of the server may take. */
const PROBE_TIMEOUT_MS = 15_000;

/** The two first requests a client may send unauthenticated: 2026-07-28's `server/discover`, then 2025's `initialize`. */
const PROBES: Array<{ headers: Record<string, string>; body: unknown }> = [
  { headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' }, body: { jsonrpc: '2.0', id: 0, method: 'server/discover', params: {} } },
  { headers: {}, body: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'cortex-r', version: VERSION } } } },
];

/**
 * What the server's answer to an unauthenticated first request says of its sign-in (RFC 9728 WWW-Authenticate: where
 * its metadata is, which scope it wants); nothing when it says nothing. A server speaking only one protocol may answer
 * the other's first request with 400 before looking at credentials, so both are tried.
 */
async function challengeOf(serverUrl: string): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  for (const probe of PROBES) {
    try {
      const res = await fetch(serverUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...probe.headers },
        body: JSON.stringify(probe.body),
        signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      });
      await res.body?.cancel();
      if (res.status !== 401 && res.status !== 403) continue;
      const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res);
      return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
    } catch {
      // Unreachable now: discovery below says so in its own words.
      return {};
    }
  }
  return {};
}

async function run<T>(spec: ServerSpec, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof McpError) throw err;
    throw new McpError(spec.id, `sign-in failed: ${errorMessage(err)}`, { cause: err });
  }
}

/** Offers each pasted line that is a callback address to `offer`, until `signal` aborts or the input ends. */
async function readPastedAnswers(read: (signal: AbortSignal) => Promise<string | null>, offer: (answer: Answer) => void, signal: AbortSignal): Promise<void> {
  for (let i = 0; i < MAX_PASTED_LINES && !signal.aborted; i++) {
    const line = await read(signal).catch(() => null);
    if (line === null) return;
    try {
      const url = new URL(line.trim());
      offer(answerOf(url));
    } catch {
      // Not an address: the next line may be.
    }
  }
}

interface Callback {
  server: Server;
  /** Hands in an answer that came another way (pasted by the person). */
  offer(answer: Answer): void;
  /** Resolves with the authorization code (and the `iss` it came with) once the browser comes back with the expected state. */
  code(state: string, signal?: AbortSignal): Promise<{ code: string; iss?: string }>;
}

type Answer = { code?: string; state?: string; error?: string; iss?: string };

/** What a redirect back from the authorization server carries. */
function answerOf(url: URL): Answer {
  const get = (name: string) => url.searchParams.get(name) ?? undefined;
  const iss = get('iss');
  return { code: get('code'), state: get('state'), error: get('error'), ...(iss !== undefined ? { iss } : {}) };
}

/**
 * RFC 9207 (required by MCP 2026-07-28): an `iss` on the redirect must be, character for character, the issuer whose
 * metadata the sign-in used, and a server that says it sends `iss` must send it; otherwise the code may come from a
 * mix-up attack and is not exchanged.
 */
function checkIssuer(spec: ServerSpec, iss: string | undefined, metadata: { issuer?: string; authorization_response_iss_parameter_supported?: boolean } | undefined): void {
  const issuer = metadata?.issuer;
  if (iss !== undefined && iss !== issuer) throw new McpError(spec.id, `sign-in refused: the answer came from issuer ${iss}, not ${issuer ?? 'the one signed in to'}`);
  if (iss === undefined && metadata?.authorization_response_iss_parameter_supported === true) {
    throw new McpError(spec.id, `sign-in refused: ${issuer} says it names itself in its answers, and this one did not`);
  }
}

function listen(port: number): Promise<Callback> {
  // The browser may come back before anyone waits (the opener can wait for the page): answers are kept until then.
  const early: Answer[] = [];
  let deliver: (result: Answer) => void = (r) => void (early.length < MAX_EARLY_ANSWERS && early.push(r));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== CALLBACK_PATH) {
      res.writeHead(404).end();
      return;
    }
    const error = url.searchParams.get('error');
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(error ? `Sign-in failed: ${error}. You can close this tab.` : 'Signed in. You can close this tab and return to the terminal.');
    deliver(answerOf(url));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () =>
      resolve({
        server,
        offer: (answer) => deliver(answer),
        code: (state, signal) =>
          new Promise<{ code: string; iss?: string }>((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`no answer from the browser within ${LOGIN_TIMEOUT_MS / 60_000} minutes`)), LOGIN_TIMEOUT_MS);
            const onAbort = () => fail(new Error('sign-in cancelled'));
            signal?.addEventListener('abort', onAbort, { once: true });
            deliver = (r) => {
              // A request with the wrong state is not ours (or a forged one): keep waiting.
              if (r.state !== state) return;
              clearTimeout(timer);
              signal?.removeEventListener('abort', onAbort);
              if (r.error || !r.code) fail(new Error(`the authorization server said: ${r.error ?? 'no code'}`));
              else ok({ code: r.code, ...(r.iss !== undefined ? { iss: r.iss } : {}) });
            };
            for (const r of early.splice(0)) deliver(r);
          }),
      }),
    );
  });
}
