// An OAuth-protected MCP server built from the SDK's own server-side auth (mcpAuthRouter, requireBearerAuth), in
// this process: authorization server and resource server on one origin, a client_credentials grant added in front.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
// @ts-expect-error -- express (the SDK's dependency) ships no types here; the few parts used are typed below.
import expressUntyped from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { createOAuthMetadata, getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { McpServer as ModernServer, createMcpHandler } from '@modelcontextprotocol/server';

type Req = IncomingMessage & { body?: Record<string, unknown>; path: string };
type Res = ServerResponse & { status(code: number): Res; json(body: unknown): void };
type Handler = (req: Req, res: Res, next: () => void) => unknown;
interface App {
  (req: IncomingMessage, res: ServerResponse): void;
  get(path: string, ...handlers: unknown[]): void;
  post(path: string, ...handlers: unknown[]): void;
  all(path: string, ...handlers: unknown[]): void;
  use(handler: unknown): void;
}
const express = expressUntyped as { (): App; urlencoded(options: { extended: boolean }): Handler };

export interface OAuthFixture {
  url: string;
  issuer: string;
  /** Clients registered dynamically, by id. */
  clients: Map<string, OAuthClientInformationFull>;
  /** Count of each grant the token endpoint served. */
  grants: Map<string, number>;
  /** Every access token issued stops working (as when they expire). */
  expireAccessTokens(): void;
  /** A pre-registered confidential client (for entries' `oauth`). */
  preRegister(client: { clientId: string; clientSecret: string }): void;
  close(): Promise<void>;
}

/** The 2026-07-28 endpoints: SDK v2's handler, 2025 openings refused (or served, `dual`), the bearer check's AuthInfo passed through. */
const modernServer = () => {
  const server = new ModernServer({ name: 'protected-modern', version: '2.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('whoami', { description: 'The client id the token belongs to', annotations: { readOnlyHint: true } }, (ctx) => ({
    content: [{ type: 'text', text: JSON.stringify({ result: (ctx as { http?: { authInfo?: AuthInfo } }).http?.authInfo?.clientId ?? null }) }],
  }));
  return server;
};
const modernOnly = createMcpHandler(modernServer, { legacy: 'reject' });
const dual = createMcpHandler(modernServer, { legacy: 'stateless' });

async function serveModern(req: Req & { auth?: AuthInfo }, res: Res, modern: typeof dual): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  const body = chunks.length && req.method === 'POST' ? Buffer.concat(chunks) : undefined;
  const response = await modern.fetch(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, ...(body ? { body } : {}) }), req.auth ? { authInfo: req.auth } : {});
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

class Clients implements OAuthRegisteredClientsStore {
  readonly all = new Map<string, OAuthClientInformationFull>();
  /** Client ID metadata documents by URL, as the authorization server would fetch them (no network in tests). */
  constructor(readonly documents: Record<string, Omit<OAuthClientInformationFull, 'client_id'>> = {}) {}
  async getClient(id: string) {
    const document = this.documents[id];
    return this.all.get(id) ?? (document ? { ...document, client_id: id } : undefined);
  }
  async registerClient(client: OAuthClientInformationFull) {
    this.all.set(client.client_id, client);
    return client;
  }
}

/**
 * `modernOnly`: the MCP endpoint speaks only protocol 2026-07-28 (SDK v2), refusing the 2025 versions; `dual`: both.
 * `clientMetadataDocuments`: the authorization server says it accepts client ID metadata documents (SEP-991) and knows these.
 */
export async function startOAuthFixture(
  options: { modernOnly?: boolean; dual?: boolean; clientMetadataDocuments?: Record<string, Omit<OAuthClientInformationFull, 'client_id'>> } = {},
): Promise<OAuthFixture> {
  const clients = new Clients(options.clientMetadataDocuments);
  const codes = new Map<string, { client: string; params: AuthorizationParams }>();
  const access = new Map<string, AuthInfo>();
  const refresh = new Map<string, string>();
  const grants = new Map<string, number>();
  const count = (g: string) => grants.set(g, (grants.get(g) ?? 0) + 1);
  const issue = (clientId: string, scopes: string[], withRefresh: boolean): OAuthTokens => {
    const token = `at-${randomUUID()}`;
    access.set(token, { token, clientId, scopes, expiresAt: Math.floor(Date.now() / 1000) + 3600 });
    const tokens: OAuthTokens = { access_token: token, token_type: 'Bearer', expires_in: 3600, scope: scopes.join(' ') };
    if (withRefresh) {
      const r = `rt-${randomUUID()}`;
      refresh.set(r, clientId);
      tokens.refresh_token = r;
    }
    return tokens;
  };

  const provider: OAuthServerProvider = {
    clientsStore: clients,
    async authorize(client, params, res) {
      // The person "signs in" at once: the browser is sent back with a code.
      const code = randomUUID();
      codes.set(code, { client: client.client_id, params });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      res.redirect(target.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const entry = codes.get(code);
      if (!entry) throw new InvalidGrantError('unknown code');
      return entry.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      const entry = codes.get(code);
      if (!entry || entry.client !== client.client_id) throw new InvalidGrantError('unknown code');
      codes.delete(code);
      count('authorization_code');
      return issue(client.client_id, entry.params.scopes ?? [], true);
    },
    async exchangeRefreshToken(client, token) {
      if (refresh.get(token) !== client.client_id) throw new InvalidGrantError('unknown refresh token');
      refresh.delete(token);
      count('refresh_token');
      return issue(client.client_id, [], true);
    },
    async verifyAccessToken(token) {
      const info = access.get(token);
      if (!info) throw new InvalidTokenError('invalid or expired token');
      return info;
    },
  };

  const app = express();
  const http: Server = createServer(app);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${origin}/mcp`);

  // The SDK's token handler serves no client_credentials; a machine-to-machine server would, so it is added here.
  app.post('/token', express.urlencoded({ extended: false }), async (req: Req, res: Res, next: () => void) => {
    if (req.body?.grant_type !== 'client_credentials') return next();
    const client = await clients.getClient(String(req.body.client_id ?? ''));
    if (!client || client.client_secret !== req.body.client_secret) return void res.status(401).json({ error: 'invalid_client' });
    count('client_credentials');
    res.json(issue(client.client_id, [], false));
  });
  if (options.clientMetadataDocuments) {
    const metadata = { ...createOAuthMetadata({ provider, issuerUrl: new URL(origin), scopesSupported: ['mcp'] }), client_id_metadata_document_supported: true };
    app.get('/.well-known/oauth-authorization-server', (_req: Req, res: Res) => res.json(metadata));
  }
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(origin), resourceServerUrl: mcpUrl, scopesSupported: ['mcp'] }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.all('/mcp', bearer, async (req: Req, res: Res) => {
    if (options.modernOnly || options.dual) return serveModern(req, res, options.dual ? dual : modernOnly);
    const server = new McpServer({ name: 'protected', version: '1.0.0' });
    server.registerTool('whoami', { description: 'The client id the token belongs to', annotations: { readOnlyHint: true } }, (extra) => ({
      content: [{ type: 'text', text: JSON.stringify({ result: extra.authInfo?.clientId ?? null }) }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });

  return {
    url: mcpUrl.href,
    issuer: origin,
    clients: clients.all,
    grants,
    expireAccessTokens: () => access.clear(),
    preRegister: ({ clientId, clientSecret }) =>
      clients.all.set(clientId, { client_id: clientId, client_secret: clientSecret, redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'client_secret_post' }),
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
