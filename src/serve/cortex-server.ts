// The HTTP server of `cortex serve`: routes, access rules, limits; every question goes through the shared Runtime.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LoadedConfig } from '../config/load-config.js';
import type { Runtime } from '../cli/runtime.js';
import { checkAccess, isLoopbackHost, PREFLIGHT_HEADERS, type AccessPolicy } from './access-policy.js';
import { ApiError } from './api-error.js';
import { handleAsk } from './ask-route.js';
import { passageRoute } from './passages.js';
import { createDocumentsRoute } from './documents-route.js';
import { sendError, sendJson } from './http-io.js';
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
  const policy: AccessPolicy = { loopback: isLoopbackHost(host), ...(token ? { token } : {}), allowedOrigins: serve.allowed_origins };
  const slots = new QuestionSlots(serve.max_concurrent);
  const documents = createDocumentsRoute({ config, maxUploadBytes: serve.max_upload_bytes });

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    if (path === '/healthz' && (method === 'GET' || method === 'HEAD')) {
      return sendJson(res, 200, { status: 'ok', running: slots.running, max_concurrent: slots.limit }, checkAccess(req, policy, { needsToken: false }));
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
      return handleAsk(req, res, { runtime, slots, maxBodyBytes: serve.max_body_bytes, headers });
    }
    if (path === '/v1/sessions') {
      allow('GET');
      return listSessionsRoute(res, config.paths.memory, url, headers);
    }
    if (path.startsWith('/v1/sessions/')) {
      allow('GET');
      return getSessionRoute(res, config.paths.memory, decodeURIComponent(path.slice('/v1/sessions/'.length)), headers);
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

  const server = createServer((req, res) => {
    const started = performance.now();
    res.on('finish', () => log(`${req.method} ${req.url} ${res.statusCode} ${Math.round(performance.now() - started)} ms`));
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      return sendError(req, res, new ApiError(400, 'bad_request', 'malformed request path'));
    }
    route(req, res, url).catch((err: unknown) => sendError(req, res, err));
  });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.maxConnections = MAX_CONNECTIONS;
  // A client that resets its connection mid-request must not take the server down.
  server.on('clientError', (_err, socket) => socket.destroy());

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
      server.closeAllConnections();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS)));
      await Promise.race([Promise.all([closed, slots.idle()]), deadline]);
      clearTimeout(timer);
    },
  };
}
