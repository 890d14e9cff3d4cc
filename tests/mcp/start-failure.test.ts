import { describe, expect, it } from 'vitest';
import { startFailure, telling } from '../../src/mcp/start-failure.js';

const NPX_OFFLINE = [
  'npm warn config production Use `--omit=dev` instead.',
  'npm warn deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported',
  'npm error code ECONNREFUSED',
  'npm error syscall connect',
  'npm error errno ECONNREFUSED',
  'npm error FetchError: request to https://registry.npmjs.org/@modelcontextprotocol%2fserver-memory failed, reason: connect ECONNREFUSED 127.0.0.1:443',
  'npm error A complete log of this run can be found in: /root/.npm/_logs/x.log',
].join('\n');

describe('startFailure', () => {
  it("quotes npm's real error, not its warnings, for an npx server that cannot install", () => {
    const cause = 'npm error FetchError: request to https://registry.npmjs.org/@modelcontextprotocol%2fserver-memory failed, reason: connect ECONNREFUSED 127.0.0.1:443';
    expect(telling(NPX_OFFLINE)).toBe(cause);
    const reason = startFailure({ error: new Error('MCP error -32000: Connection closed'), transportErrors: [], timedOut: false, limitMs: 90_000, stderr: NPX_OFFLINE });
    expect(reason).toBe(`exited before it answered; its stderr: ${cause}`);
  });

  it('names the deadline of a server that did not answer, and suggests raising its timeout', () => {
    expect(startFailure({ error: new Error('aborted'), transportErrors: [], timedOut: true, limitMs: 90_000, stderr: '' })).toBe(
      'did not answer within 90 s (raise its `timeout` if it installs slowly)',
    );
  });

  it('keeps the last line when no line names an error, and bounds a flood to one line', () => {
    expect(telling('starting\nlistening on stdio\n')).toBe('listening on stdio');
    expect(telling(`${'x'.repeat(10_000)} error\n`.repeat(100)).length).toBeLessThanOrEqual(603);
  });
});
