// The HTTP-input policy: strict decoding, write requests a cross-site form cannot make, secrets kept out of the log.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/serve/api-error.js';
import { checkWriteRequest, decodeUrlPart, loggedTarget, queryValue } from '../../src/serve/http-input.js';

function status(run: () => unknown): number | null {
  try {
    run();
    return null;
  } catch (err) {
    return err instanceof ApiError ? err.status : -1;
  }
}

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('decodeUrlPart and queryValue', () => {
  it('decodes well-formed escapes and plus signs', () => {
    expect(decodeUrlPart('caf%C3%A9', 'x')).toBe('café');
    expect(queryValue(new URL('http://h/p?a=1&name=my+notes%2Emd'), 'name')).toBe('my notes.md');
    expect(queryValue(new URL('http://h/p?a=1'), 'name')).toBeNull();
  });

  it.each(['%ZZ.md', '%E0%A4%A.md', '%C3.md', '%'])('refuses the malformed escape %s with 400 rather than guessing', (raw) => {
    expect(status(() => queryValue(new URL(`http://h/p?name=${raw}`), 'name'))).toBe(400);
    expect(status(() => decodeUrlPart(raw, 'x'))).toBe(400);
  });
});

describe('checkWriteRequest', () => {
  it('accepts a body sent as its own type', () => {
    expect(status(() => checkWriteRequest(request({ 'content-type': 'application/octet-stream' })))).toBeNull();
    expect(status(() => checkWriteRequest(request({ 'content-type': 'application/pdf' })))).toBeNull();
  });

  it.each(['', 'text/plain;charset=UTF-8', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded'])(
    'refuses %j, which a page on another site could send without a preflight, with 415',
    (type) => {
      expect(status(() => checkWriteRequest(request(type ? { 'content-type': type } : {})))).toBe(415);
    },
  );
});

describe('loggedTarget', () => {
  it('hides the values of secret-looking query parameters and keeps the rest', () => {
    expect(loggedTarget('/v1/servers?token=sesame-123&limit=5')).toBe('/v1/servers?token=[hidden]&limit=5');
    expect(loggedTarget('/v1/ask?access_token=abc&API_KEY=def')).toBe('/v1/ask?access_token=[hidden]&API_KEY=[hidden]');
    expect(loggedTarget('/v1/documents?name=a.md')).toBe('/v1/documents?name=a.md');
    expect(loggedTarget('/healthz')).toBe('/healthz');
  });
});
