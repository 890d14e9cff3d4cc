// Host names are judged before any DNS lookup; our fetches carry a mark that `cortex serve` refuses.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostNameRefusal } from '../../src/net/host-name-policy.js';
import { safeFetch, type HostResolver } from '../../src/net/safe-fetch.js';
import { ApiError } from '../../src/serve/api-error.js';
import { checkAccess } from '../../src/serve/access-policy.js';

describe('hostNameRefusal', () => {
  it('refuses metadata names and malformed names whatever the config says', () => {
    for (const host of ['metadata.google.internal', 'instance-data', `${'a'.repeat(64)}.attacker.test`, `${'a.'.repeat(127)}test`, 'a..b']) {
      expect(hostNameRefusal(host, { blockPrivateNetwork: false }), host).toBeDefined();
    }
  });

  it('refuses names of this machine and the local network when private networks are blocked', () => {
    for (const host of ['localhost', 'api.localhost', 'printer.local', 'db.internal', 'router.home.arpa', 'intranet']) {
      expect(hostNameRefusal(host, { blockPrivateNetwork: true }), host).toBeDefined();
      expect(hostNameRefusal(host, { blockPrivateNetwork: false }), host).toBeUndefined();
    }
    expect(hostNameRefusal('example.org', { blockPrivateNetwork: true })).toBeUndefined();
  });
});

describe('safeFetch and the host name', () => {
  it('refuses a local or malformed name without asking the resolver', async () => {
    const asked: string[] = [];
    const resolveHost: HostResolver = async (host) => {
      asked.push(host);
      return [{ address: '93.184.216.34', family: 4 }];
    };
    for (const url of ['http://localhost:8765/v1/sessions', `http://${'s3cr3t'.repeat(12)}.attacker.test/`, 'http://metadata.google.internal/']) {
      await expect(safeFetch(url, { policy: { blockPrivateNetwork: true }, resolveHost }), url).rejects.toMatchObject({ code: 'blocked_address' });
    }
    expect(asked).toEqual([]);
  });
});

describe("our web tools and cortex serve's API", () => {
  let url = '';
  const seen: IncomingMessage['headers'][] = [];
  // Stands for `cortex serve`: its real access check in front of a 200.
  const api = createServer((req, res) => {
    seen.push(req.headers);
    try {
      checkAccess(req, { loopback: true, allowedOrigins: [] }, { needsToken: true });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"sessions":["secret"]}');
    } catch (err) {
      res.writeHead((err as ApiError).status).end();
    }
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(api.address() as AddressInfo).port}/v1/sessions`;
  });
  afterAll(() => new Promise<void>((resolve) => api.close(() => resolve())));

  it('are refused by the API even when private networks are allowed', async () => {
    await expect(safeFetch(url, { policy: { blockPrivateNetwork: false } })).rejects.toMatchObject({ code: 'http_status', message: expect.stringContaining('HTTP 403') });
    expect(seen.at(-1)?.['x-cortex-r-tool-fetch']).toBe('1');
  });

  it('carry the mark even with headers of their own', async () => {
    await expect(safeFetch(url, { policy: { blockPrivateNetwork: false }, headers: { accept: 'application/json' } })).rejects.toMatchObject({ code: 'http_status' });
    expect(seen.at(-1)?.['x-cortex-r-tool-fetch']).toBe('1');
  });
});
