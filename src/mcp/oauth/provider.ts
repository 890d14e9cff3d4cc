// The SDK's OAuthClientProvider for one remote server: stored sign-in, a pre-registered client from the entry, or
// dynamic registration; in a run it never opens a browser, it says how to sign in.
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { ServerSpec } from '../../config/server-spec.js';
import { McpError } from '../../errors.js';
import type { OAuthStore } from './store.js';

/** Redirect URI stated in a run, where no browser is opened: it is never visited. */
const NO_REDIRECT = 'http://127.0.0.1/callback';

/** The server needs a person to sign in (`cortex servers login ID`). */
export class SignInRequiredError extends McpError {
  constructor(serverId: string, detail = '') {
    super(serverId, `needs you to sign in${detail}: run \`cortex servers login ${serverId}\``);
  }
}

/** The server answered 401 but says nothing of OAuth: only a token in its entry's headers can help. */
export class NoOAuthMetadataError extends McpError {
  constructor(serverId: string) {
    super(
      serverId,
      'answered 401 Unauthorized and publishes no OAuth metadata, so cortex cannot sign in to it; put a token in its entry, e.g. "headers": {"Authorization": "Bearer ${TOKEN}"}',
    );
  }
}

/** How a sign-in started by `cortex servers login` goes: where the browser comes back, and how to send it. */
export interface Interactive {
  redirectUrl: string;
  /** Sends the person to the authorization page. */
  openAuthorization(url: URL): void | Promise<void>;
}

/** The provider for a remote server: client_credentials entries get the SDK's own providers, others a StoredProvider. */
export function oauthProviderFor(spec: ServerSpec, store: OAuthStore, interactive?: Interactive): OAuthClientProvider {
  const o = spec.oauth;
  if (o?.grantType === 'client_credentials' && o.clientId) {
    if (o.privateKey) return new PrivateKeyJwtProvider({ clientId: o.clientId, privateKey: o.privateKey, algorithm: o.signingAlgorithm ?? 'RS256', ...(o.scope ? { scope: o.scope } : {}) });
    return new ClientCredentialsProvider({ clientId: o.clientId, clientSecret: o.clientSecret ?? '', ...(o.scope ? { scope: o.scope } : {}) });
  }
  return new StoredProvider(spec, store, interactive);
}

/** Authorization code with PKCE; client from the entry, else from the store, else registered dynamically (login only). */
export class StoredProvider implements OAuthClientProvider {
  private verifier = '';
  readonly expectedState = randomBytes(16).toString('hex');

  constructor(
    private readonly spec: ServerSpec,
    private readonly store: OAuthStore,
    private readonly interactive?: Interactive,
  ) {}

  private get url(): string {
    return this.spec.url!;
  }

  get redirectUrl(): string {
    return this.interactive?.redirectUrl ?? NO_REDIRECT;
  }

  /**
   * The user's client ID metadata document (SEP-991): the SDK uses it as the client_id when the authorization server
   * says it accepts such documents, and registers dynamically otherwise. None configured: dynamic registration.
   */
  get clientMetadataUrl(): string | undefined {
    return this.spec.oauth?.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.spec.oauth?.clientSecret;
    // application_type is newer than the SDK's type; the SDK sends the object as it is.
    const metadata: OAuthClientMetadata & { application_type: 'native' } = {
      client_name: 'Cortex-R',
      // A program on the person's machine with a loopback redirect (SEP-837: registration says which kind of client).
      application_type: 'native',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_post' : 'none',
      ...(this.spec.oauth?.scope ? { scope: this.spec.oauth.scope } : {}),
    };
    return metadata;
  }

  state(): string {
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const o = this.spec.oauth;
    if (o?.clientId) return { client_id: o.clientId, ...(o.clientSecret ? { client_secret: o.clientSecret } : {}) };
    const { client: stored, discovery } = this.store.load(this.url);
    if (stored || this.interactive) return stored;
    // In a run nobody can register and sign in: say how, rather than register a client nobody will use.
    if (discovery && !discovery.authorizationServerMetadata && !discovery.resourceMetadata) throw new NoOAuthMetadataError(this.spec.id);
    throw new SignInRequiredError(this.spec.id);
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    if (this.spec.oauth?.clientId) return;
    this.store.update(this.url, (s) => ({ ...s, client }));
  }

  tokens(): OAuthTokens | undefined {
    return this.store.load(this.url).tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.store.update(this.url, (s) => ({ ...s, tokens }));
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.interactive) {
      const signIn = this.store.load(this.url);
      // Remember the scope the server asked for (more than before, on a step-up), so the sign-in asks for it.
      const scope = url.searchParams.get('scope');
      if (scope && scope !== signIn.scope) this.store.save({ ...signIn, scope });
      const why = scope && signIn.tokens && scope !== signIn.tokens.scope ? ' again (it needs more access)' : signIn.tokens ? ' again (the sign-in expired)' : '';
      throw new SignInRequiredError(this.spec.id, why);
    }
    await this.interactive.openAuthorization(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  saveDiscoveryState(discovery: OAuthDiscoveryState): void {
    // RFC 8414: metadata naming another issuer than the one it was fetched for must not be used (a mix-up).
    const issuer = discovery.authorizationServerMetadata?.issuer;
    if (issuer !== undefined && issuer.replace(/\/$/, '') !== discovery.authorizationServerUrl.replace(/\/$/, '')) {
      throw new Error(`the authorization server at ${discovery.authorizationServerUrl} published metadata for issuer ${issuer}; refusing to use it`);
    }
    this.store.update(this.url, (s) => ({ ...s, discovery }));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.interactive ? undefined : this.store.load(this.url).discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') {
      this.verifier = '';
      return;
    }
    this.store.update(this.url, (s) => {
      if (scope === 'all') return { serverUrl: s.serverUrl };
      const { [scope === 'client' ? 'client' : scope === 'tokens' ? 'tokens' : 'discovery']: _gone, ...rest } = s;
      return rest;
    });
  }
}
