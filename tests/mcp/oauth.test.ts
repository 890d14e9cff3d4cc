// OAuth for remote servers, against the SDK's own authorization and resource server helpers.
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerSpec } from '../../src/config/server-spec.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { login } from '../../src/mcp/oauth/login.js';
import { browserCommand } from '../../src/mcp/oauth/open-browser.js';
import { OAuthStore } from '../../src/mcp/oauth/store.js';
import { httpSpec } from './http-fixture.js';
import { startOAuthFixture, type OAuthFixture } from './oauth-fixture.js';

const parsed = (r: { content: Array<{ text?: string }> }) => JSON.parse(r.content[0]!.text!).result;
let fixture: OAuthFixture | undefined;
let multi: MultiMcp | undefined;
let plain: Server | undefined;
afterEach(async () => {
  await multi?.close();
  await fixture?.close();
  plain?.closeAllConnections();
  plain?.close();
  multi = fixture = plain = undefined;
});

const newStore = () => new OAuthStore(join(mkdtempSync(join(tmpdir(), 'cortex-oauth-')), 'oauth'));

/** The person's browser: follows the authorization page's redirect back to the loopback callback. */
const browser = { opened: [] as string[], lines: [] as string[] };
const io = {
  open: async (url: string) => {
    browser.opened.push(url);
    await fetch(url, { redirect: 'follow' });
  },
  say: (line: string) => browser.lines.push(line),
};

async function signIn(spec: ServerSpec, store: OAuthStore): Promise<void> {
  await login(spec, store, io);
}

describe('OAuth for remote MCP servers', () => {
  it('says sign-in is needed and how, for a server that wants it and no sign-in is stored', async () => {
    fixture = await startOAuthFixture();
    multi = await MultiMcp.start([httpSpec('hosted', fixture.url)], { oauthStore: newStore() });
    expect(multi.statuses()[0]).toMatchObject({ state: 'failed', error: 'MCP server "hosted": needs you to sign in: run `cortex servers login hosted`' });
  });

  it('signs in through the browser (discovery, dynamic registration, PKCE), keeps the tokens 0600, and uses them', async () => {
    fixture = await startOAuthFixture();
    const store = newStore();
    const spec = httpSpec('hosted', fixture.url);
    await signIn(spec, store);
    expect(browser.opened.at(-1)).toMatch(/\/authorize\?.*code_challenge=.*code_challenge_method=S256/);
    expect(browser.lines.at(-1)).toContain(browser.opened.at(-1));
    expect(fixture.clients.size).toBe(1);
    const file = store.fileOf(fixture.url);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(store.dir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8')).tokens.access_token).toMatch(/^at-/);

    multi = await MultiMcp.start([spec], { oauthStore: store });
    const clientId = [...fixture.clients.keys()][0];
    expect(parsed(await multi.callTool('hosted', 'whoami', {}))).toBe(clientId);
  });

  it('takes the address pasted from a browser on another machine when the redirect cannot arrive', async () => {
    fixture = await startOAuthFixture();
    const store = newStore();
    let authorizeUrl = '';
    const pasted = ['not an address'];
    await login(httpSpec('hosted', fixture.url), store, {
      open: (url) => void (authorizeUrl = url),
      say: () => undefined,
      readPasted: async () => {
        if (pasted.length) return pasted.shift()!;
        // The other machine's browser ends on the loopback address, which is not served there: the person copies it.
        const res = await fetch(authorizeUrl, { redirect: 'manual' });
        return res.headers.get('location');
      },
    });
    expect(JSON.parse(readFileSync(store.fileOf(fixture.url), 'utf8')).tokens.access_token).toMatch(/^at-/);
  });

  const DOCUMENT_URL = 'https://cortex.example/oauth/client.json';
  const document = { client_name: 'Cortex-R', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' };

  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    it(`signs in with the configured client ID metadata document instead of registering, when the server accepts one (${era})`, async () => {
      fixture = await startOAuthFixture({ clientMetadataDocuments: { [DOCUMENT_URL]: document }, modernOnly: era === '2026-07-28' });
      const store = newStore();
      const spec = httpSpec('hosted', fixture.url, { oauth: { clientMetadataUrl: DOCUMENT_URL } });
      await signIn(spec, store);
      expect(new URL(browser.opened.at(-1)!).searchParams.get('client_id')).toBe(DOCUMENT_URL);
      expect(fixture.clients.size).toBe(0);
      multi = await MultiMcp.start([spec], { oauthStore: store });
      expect(multi.statuses()[0]).toMatchObject({ state: 'ready', protocolVersion: era });
      expect(parsed(await multi.callTool('hosted', 'whoami', {}))).toBe(DOCUMENT_URL);
    });
  }

  it('registers dynamically when the server does not accept client ID metadata documents, even with one configured', async () => {
    fixture = await startOAuthFixture();
    const store = newStore();
    const spec = httpSpec('hosted', fixture.url, { oauth: { clientMetadataUrl: DOCUMENT_URL } });
    await signIn(spec, store);
    expect(fixture.clients.size).toBe(1);
    multi = await MultiMcp.start([spec], { oauthStore: store });
    expect(parsed(await multi.callTool('hosted', 'whoami', {}))).toBe([...fixture.clients.keys()][0]);
  });

  it('refreshes an expired access token without asking the person again', async () => {
    fixture = await startOAuthFixture();
    const store = newStore();
    const spec = httpSpec('hosted', fixture.url);
    await signIn(spec, store);
    const opened = browser.opened.length;
    fixture.expireAccessTokens();
    multi = await MultiMcp.start([spec], { oauthStore: store });
    expect(multi.statuses()[0]!.state).toBe('ready');
    expect(fixture.grants.get('refresh_token')).toBe(1);
    expect(browser.opened.length).toBe(opened);
  });

  it('uses a pre-registered client with client_credentials from the entry, no browser', async () => {
    fixture = await startOAuthFixture();
    fixture.preRegister({ clientId: 'robot', clientSecret: 's3cret' });
    const spec = httpSpec('m2m', fixture.url, { oauth: { clientId: 'robot', clientSecret: 's3cret', grantType: 'client_credentials' } });
    multi = await MultiMcp.start([spec], { oauthStore: newStore() });
    expect(parsed(await multi.callTool('m2m', 'whoami', {}))).toBe('robot');
    expect(fixture.grants.get('client_credentials')).toBe(1);
  });

  it('signs in to a server that speaks only 2026-07-28 and calls it with the token', async () => {
    fixture = await startOAuthFixture({ modernOnly: true });
    fixture.preRegister({ clientId: 'robot', clientSecret: 's3cret' });
    const spec = httpSpec('modern-m2m', fixture.url, { oauth: { clientId: 'robot', clientSecret: 's3cret', grantType: 'client_credentials' } });
    multi = await MultiMcp.start([spec], { oauthStore: newStore() });
    expect(multi.statuses()[0]).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
    expect(parsed(await multi.callTool('modern-m2m', 'whoami', {}))).toBe('robot');
  });

  it('speaks 2026-07-28 with a signed-in server that speaks both eras, with one token grant', async () => {
    fixture = await startOAuthFixture({ dual: true });
    fixture.preRegister({ clientId: 'robot', clientSecret: 's3cret' });
    const spec = httpSpec('dual-m2m', fixture.url, { oauth: { clientId: 'robot', clientSecret: 's3cret', grantType: 'client_credentials' } });
    multi = await MultiMcp.start([spec], { oauthStore: newStore() });
    expect(multi.statuses()[0]).toMatchObject({ state: 'ready', protocolVersion: '2026-07-28' });
    expect(parsed(await multi.callTool('dual-m2m', 'whoami', {}))).toBe('robot');
    expect(fixture.grants.get('client_credentials')).toBe(1);
  });

  it('says a 401 without OAuth metadata needs a token in the entry, not an SSE error', async () => {
    plain = createServer((_req, res) => res.writeHead(401).end('no'));
    await new Promise<void>((resolve) => plain!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/mcp`;
    multi = await MultiMcp.start([httpSpec('locked', url)], { oauthStore: newStore() });
    const error = multi.statuses()[0]!.error!;
    expect(error).not.toMatch(/SSE/);
    expect(error).toMatch(/401 Unauthorized and publishes no OAuth metadata.*"Authorization": "Bearer/);
  });

  it('opens $BROWSER when set, else the platform opener', () => {
    expect(browserCommand('http://x/a?b=1', { BROWSER: 'firefox --new-tab' }, 'linux')).toEqual({ command: 'firefox', args: ['--new-tab', 'http://x/a?b=1'] });
    expect(browserCommand('http://x/', { BROWSER: 'my-open %s --now' }, 'linux')).toEqual({ command: 'my-open', args: ['http://x/', '--now'] });
    expect(browserCommand('http://x/', {}, 'linux').command).toBe('xdg-open');
    expect(browserCommand('http://x/', {}, 'darwin').command).toBe('open');
  });
});
