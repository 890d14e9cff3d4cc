// The HTTP server of `cortex serve`: routes, access rules, limits; every question goes through the shared Runtime.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LoadedConfig } from '../config/load-config.js';
import type { Runtime } from '../runtime/runtime.js';
import { checkAccess, checkApiToken, clientKey, isLoopbackHost, PREFLIGHT_HEADERS, type AccessPolicy } from './access-policy.js';
import { ApiError, internalDetail, toApiError } from './api-error.js';
import { handleAsk } from './ask-route.js';
import { passageRoute } from './passages.js';
import { createDocumentsRoute } from './documents-route.js';
import { readJsonBody, sendError, sendJson } from './http-io.js';
import { decodeUrlPart, loggedTarget } from './http-input.js';
import { LiveQuestions } from './live-questions.js';
import { joinLiveRoute, stopLiveRoute } from './live-route.js';
import { PageElicitations } from './page-elicitations.js';
import { QuestionSlots } from './question-slots.js';
import { getSessionRoute, listSessionsRoute } from './sessions-route.js';
import { isPagePath, sendPageFile } from './static-page.js';

/** Time a client has to send its headers; a connection that sends nothing is closed. */
const HEADERS_TIMEOUT_MS = 10_000;
/** Time a client has to send a whole request (a 50 MB upload at 1 MB/s fits); answers may stream longer. */
const REQUEST_TIMEOUT_MS = 120_000;
/** Idle keep-alive connections are closed after this. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** On close, how long cancelled questions get to write their last memory items. */
const SHUTDOWN_WAIT_MS = 5_000;
/** Open connections at most; more are refused at once, so a flood cannot exhaust file descriptors. */
export const MAX_CONNECTIONS = 512;
/**
 * Open connections from one client address (an IPv6 /64 counts as one) on a server bound beyond loopback: a browser
 * opens 6 per host, so this leaves room for many pages and scripts, while 8 such clients are needed to fill
 * MAX_CONNECTIONS. On loopback every client is this machine, so only MAX_CONNECTIONS applies.
 */
export const MAX_CONNECTIONS_PER_ADDRESS = 64;
/** How often connections are checked against the header and request timeouts (Node's default is 30 s). */
const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/** Options of startCortexServer(). */
export interface CortexServerOptions {
  runtime: Runtime;
  config: LoadedConfig;
  /** The profile's serve.host / serve.port unless overridden (port 0 picks a free one). */
  host: string;
  port: number;
  /** CORTEX_API_TOKEN; required when `host` is not loopback (the caller checks). */
  token?: string;
  /** One line per request (method, path, status, ms). */
  log?: (line: string) => void;
}

/** A running server. */
export interface CortexServer {
  /** e.g. http://127.0.0.1:8765 */
  readonly url: string;
  readonly server: Server;
  /** Stops accepting, cancels running questions (closing their connections) and waits for them to end, boundedly. */
  close(): Promise<void>;
}

/** Starts the HTTP API and the page on host:port. @throws the listen error (e.g. EADDRINUSE). */
export async function startCortexServer({ runtime, config, host, port, token, log = () => {} }: CortexServerOptions): Promise<CortexServer> {
  const serve = config.profile.serve;
  if (token !== undefined) checkApiToken(token);
  const policy: AccessPolicy = { loopback: isLoopbackHost(host), ...(token ? { token } : {}), allowedOrigins: serve.allowed_origins };
  const slots = new QuestionSlots(serve.max_concurrent);
  const elicitations = new PageElicitations();
  const live = new LiveQuestions();
  const documents = createDocumentsRoute({ config, maxUploadBytes: serve.max_upload_bytes });

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    if (path === '/healthz' && (method === 'GET' || method === 'HEAD')) {
      return sendJson(res, 200, { status: 'ok', running: slots.running, max_concurrent: slots.limit, viewers: live.viewers }, checkAccess(req, policy, { needsToken: false }));
    }
    if (isPagePath(path) && (method === 'GET' || method === 'HEAD')) {
      checkAccess(req, policy, { needsToken: false });
      return sendPageFile(res, path, method === 'HEAD');
    }
    if (!path.startsWith('/v1/')) throw new ApiError(404, 'not_found', `no such page: ${path}`);
    if (method === 'OPTIONS') {
      const cors = checkAccess(req, policy, { needsToken: false });
      res.writeHead(204, { ...cors, ...PREFLIGHT_HEADERS });
      return void res.end();
    }
    const headers = checkAccess(req, policy, { needsToken: true });
    const allow = (...methods: string[]) => {
      if (!methods.includes(method)) throw new ApiError(405, 'method_not_allowed', `${path} takes ${methods.join(' or ')}`, { allow: methods.join(', ') });
    };
    if (path === '/v1/ask') {
      allow('POST');
      return handleAsk(req, res, { runtime, slots, live, memoryDir: config.paths.memory, elicitations, maxBodyBytes: serve.max_body_bytes, headers });
    }
    if (path.startsWith('/v1/elicitations/')) {
      allow('POST');
      elicitations.answer(decodeUrlPart(path.slice('/v1/elicitations/'.length), 'the request id'), await readJsonBody(req, serve.max_body_bytes));
      return sendJson(res, 200, { ok: true }, headers);
    }
    if (path === '/v1/sessions') {
      allow('GET');
      return listSessionsRoute(res, config.paths.memory, url, headers);
    }
    const liveAction = /^\/v1\/sessions\/([^/]+)\/(live|stop)$/.exec(path);
    if (liveAction) {
      const id = decodeUrlPart(liveAction[1]!, 'the session id');
      if (liveAction[2] === 'live') {
        allow('GET');
        return joinLiveRoute(res, live, id, headers);
      }
      allow('POST');
      return stopLiveRoute(req, res, { live, rawId: id, maxBodyBytes: serve.max_body_bytes, headers });
    }
    if (path.startsWith('/v1/sessions/')) {
      allow('GET');
      return getSessionRoute(res, config.paths.memory, decodeUrlPart(path.slice('/v1/sessions/'.length), 'the session id'), headers);
    }
    if (path === '/v1/servers') {
      allow('GET');
      return sendJson(res, 200, { servers: runtime.servers() }, headers);
    }
    if (path === '/v1/documents') {
      allow('GET', 'POST');
      return method === 'GET' ? documents.list(res, headers) : documents.upload(req, res, headers, url);
    }
    if (path === '/v1/passages') {
      allow('GET');
      return passageRoute(res, config.paths.faissIndex, url, headers);
    }
    throw new ApiError(404, 'not_found', `no such endpoint: ${method} ${path}`);
  };

  const server = createServer({ connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS }, (req, res) => {
    const started = performance.now();
    // The log never shows a query value that looks like a secret (a token sent as ?token= is refused, not recorded).
    res.on('finish', () => log(`${req.method} ${loggedTarget(req.url)} ${res.statusCode} ${Math.round(performance.now() - started)} ms`));
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      return sendError(req, res, new ApiError(400, 'bad_request', 'malformed request path'));
    }
    route(req, res, url).catch((err: unknown) => {
      const error = toApiError(err);
      const detail = internalDetail(error);
      if (detail !== null) log(`${req.method} ${url.pathname}: internal error: ${detail}`);
      sendError(req, res, error);
    });
  });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.maxConnections = MAX_CONNECTIONS;
  // A client that resets its connection mid-request must not take the server down.
  server.on('clientError', (_err, socket) => socket.destroy());
  // Before any request is read (so before the token is checked), one client cannot hold every connection.
  if (!policy.loopback) {
    const open = new Map<string, number>();
    server.on('connection', (socket) => {
      const key = clientKey(socket.remoteAddress);
      const count = (open.get(key) ?? 0) + 1;
      if (count > MAX_CONNECTIONS_PER_ADDRESS) return void socket.destroy();
      open.set(key, count);
      socket.once('close', () => {
        const left = (open.get(key) ?? 1) - 1;
        if (left > 0) open.set(key, left);
        else open.delete(key);
      });
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    server,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Questions outlive their connections (a page may come back): closing the server cancels them itself.
      live.stopAll();
      server.closeAllConnections();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS)));
      await Promise.race([Promise.all([closed, slots.idle()]), deadline]);
      clearTimeout(timer);
    },
  };
}
