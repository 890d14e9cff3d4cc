// The `oauth` and `timeout` keys of a remote server's entry (Claude Code's .mcp.json shape): read, secrets expanded, mistakes named.
import { describe, expect, it } from 'vitest';
import { readClientConfig } from '../../src/config/mcp-entries.js';

const read = (entry: unknown, env: NodeJS.ProcessEnv = {}, clientMetadataUrl?: string) =>
  readClientConfig(JSON.stringify({ mcpServers: { hosted: { type: 'http', url: 'https://mcp.example.com/mcp', ...(entry as object) } } }), {
    file: '/p/.mcp.json',
    root: '/p',
    env,
    own: { math: {}, documents: {}, websearch: {}, history: {} },
    startTimeoutMs: 90_000,
    ...(clientMetadataUrl ? { clientMetadataUrl } : {}),
  });

describe('oauth entries', () => {
  it('reads a pre-registered client with client_credentials, the secret from the environment', () => {
    const { specs } = read({ oauth: { clientId: 'robot', clientSecret: '${SECRET}', grantType: 'client_credentials', scope: 'mcp' } }, { SECRET: 's3' });
    expect(specs[0]!.oauth).toEqual({ clientId: 'robot', clientSecret: 's3', grantType: 'client_credentials', scope: 'mcp' });
  });

  it('disables the server with a one-line reason for client_credentials without a clientId, or an unknown key', () => {
    expect(read({ oauth: { grantType: 'client_credentials' } }).disabled[0]!.reason).toMatch(/oauth: client_credentials needs a clientId/);
    expect(read({ oauth: { clientID: 'x' } }).disabled[0]!.reason).toMatch(/oauth/);
  });

  it('gives every remote entry the profile\'s client ID metadata document unless the entry names its own', () => {
    const global = 'https://me.example/cortex/client.json';
    expect(read({}, {}, global).specs[0]!.oauth).toEqual({ clientMetadataUrl: global });
    expect(read({ oauth: { clientMetadataUrl: 'https://team.example/c.json' } }, {}, global).specs[0]!.oauth).toEqual({ clientMetadataUrl: 'https://team.example/c.json' });
    expect(read({}).specs[0]!.oauth).toBeUndefined();
  });

  it('disables a server whose client ID metadata document is not at an https URL with a path', () => {
    expect(read({ oauth: { clientMetadataUrl: 'http://me.example/client.json' } }).disabled[0]!.reason).toMatch(/oauth: clientMetadataUrl .* must be an https:\/\/ URL with a path/);
    expect(read({ oauth: { clientMetadataUrl: 'https://me.example/' } }).disabled[0]!.reason).toMatch(/must be an https/);
  });

  it('takes the entry\'s timeout as the time one request may take, as other clients do (servers test honours it)', () => {
    expect(read({ timeout: 5 }).specs[0]).toMatchObject({ callTimeoutMs: 5_000, startTimeoutMs: 5_000 });
    expect(read({}).specs[0]!.callTimeoutMs).toBeUndefined();
  });
});
