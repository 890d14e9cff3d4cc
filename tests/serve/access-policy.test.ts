// checkAccess and its parts: host names read strictly, tokens long enough, clients counted by address or network.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { ApiError } from '../../src/serve/api-error.js';
import { checkAccess, checkApiToken, clientKey, hostName, MIN_TOKEN_CHARS } from '../../src/serve/access-policy.js';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const LOOPBACK = { loopback: true, allowedOrigins: [] };

function status(headers: Record<string, string>, policy = LOOPBACK): number | null {
  try {
    checkAccess(request(headers), policy, { needsToken: true });
    return null;
  } catch (err) {
    return err instanceof ApiError ? err.status : -1;
  }
}

describe('hostName', () => {
  it.each([
    ['127.0.0.1:8765', '127.0.0.1'],
    ['[::1]:8765', '[::1]'],
    ['LOCALHOST', 'localhost'],
  ])('reads %s as %s', (header, name) => {
    expect(hostName(header)).toBe(name);
  });

  it.each(['[::1].attacker.example', '[::1]x', '[::1]:80:80', 'a b', '', 'localhost:port'])('reads %j as no host at all', (header) => {
    expect(hostName(header)).toBeNull();
  });
});

describe('checkAccess on a loopback server', () => {
  it('answers loopback host names', () => {
    expect(status({ host: '127.0.0.1:1' })).toBeNull();
    expect(status({ host: '[::1]:1' })).toBeNull();
  });

  it.each(['[::1].attacker.example', '[::1].attacker.example:80', '127.0.0.1.attacker.example', 'attacker.example'])('refuses the rebound name %s with 421', (host) => {
    expect(status({ host })).toBe(421);
  });
});

describe('checkApiToken', () => {
  it('refuses a token shorter than MIN_TOKEN_CHARS', () => {
    expect(() => checkApiToken('x')).toThrow(UsageError);
    expect(() => checkApiToken('a'.repeat(MIN_TOKEN_CHARS - 1))).toThrow(/at least 16/);
    expect(() => checkApiToken('a'.repeat(MIN_TOKEN_CHARS))).not.toThrow();
  });
});

describe('clientKey', () => {
  it('counts an IPv4 client by its address and an IPv6 one by its /64 network', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('::ffff:203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe(clientKey('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee'));
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
  });
});
