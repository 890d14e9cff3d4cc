// A server whose tool results break the protocol: the caller gets one line naming the problem, never a schema dump.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '../../src/errors.js';
import { malformedResultMessage } from '../../src/mcp/malformed-result-message.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { PROJECT_ROOT } from '../../src/paths.js';

describe('malformedResultMessage', () => {
  it('names the places of a zod issue dump in one line', () => {
    const dump = JSON.stringify([{ code: 'invalid_union', path: ['content', 0], message: 'Invalid input' }, { code: 'x', path: ['content', 1, 'text'], message: 'm' }], null, 2);
    expect(malformedResultMessage(new Error(`MCP error -32602: Invalid tools/call result: ${dump}`))).toBe(
      'the server sent a malformed result (it does not follow the MCP tool result format at content[0], content[1].text)',
    );
  });

  it('leaves other errors alone', () => {
    expect(malformedResultMessage(new Error('Request timed out'))).toBeUndefined();
  });
});

describe('a real stdio server sending malformed results', () => {
  let multi: MultiMcp;
  beforeAll(async () => {
    multi = await MultiMcp.start([
      { id: 'malformed', command: process.execPath, args: [join(PROJECT_ROOT, 'tests', 'fixtures', 'malformed-result-server.mjs')], cwd: PROJECT_ROOT, env: {}, description: '', capabilities: [] },
    ]);
  });
  afterAll(() => multi.close());

  async function failure(tool: string): Promise<string> {
    try {
      await multi.callTool('malformed', tool, {}, { timeoutMs: 10_000 });
    } catch (err) {
      expect(err).toBeInstanceOf(McpError);
      return (err as Error).message;
    }
    throw new Error(`${tool} answered`);
  }

  it('reports content items of no known shape in one line', async () => {
    const message = await failure('bad_content');
    expect(message).not.toContain('\n');
    expect(message).toBe(
      'MCP server "malformed": tool bad_content: the server sent a malformed result (it does not follow the MCP tool result format at content[0], content[1], content[2])',
    );
  });

  it('reports structured content that breaks the output schema in one line', async () => {
    const message = await failure('bad_structure');
    expect(message).not.toContain('\n');
    expect(message).toMatch(/^MCP server "malformed": tool bad_structure: the server's result does not match the tool's declared output schema: .*result must be number$/);
  });

  it('keeps the server usable afterwards', async () => {
    await failure('bad_content');
    expect(await failure('bad_structure')).toContain('output schema');
  });
});
