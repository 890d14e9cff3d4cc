// The `oauth` and `timeout` keys of a remote server's entry (Claude Code's .mcp.json shape): read, secrets expanded, mistakes named.
import { describe, expect, it } from 'vitest';
import { readClientConfig } from '../../src/config/mcp-entries.js';

const read = (entry: unknown, env: NodeJS.ProcessEnv = {}) =>
  readClientConfig(JSON.stringify({ mcpServers: { hosted: { type: 'http', url: 'https://mcp.example.com/mcp', ...(entry as object) } } }), {
    file: '/p/.mcp.json',
    root: '/p',
    env,
    own: { math: {}, documents: {}, websearch: {}, history: {} },
    startTimeoutMs: 90_000,
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

  it('takes the entry\'s timeout as the time one request may take, as other clients do (servers test honours it)', () => {
    expect(read({ timeout: 5 }).specs[0]).toMatchObject({ callTimeoutMs: 5_000, startTimeoutMs: 5_000 });
    expect(read({}).specs[0]!.callTimeoutMs).toBeUndefined();
  });
});
