// MCP prompts reach the person: `/prompt` lists a server's prompts, `/prompt NAME arg=value` turns one into the question.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { isPromptLine, promptLine } from '../../src/cli/prompt-line.js';
import { PROJECT_ROOT } from '../../src/paths.js';

const EVERYTHING = join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
let multi: MultiMcp;
beforeAll(async () => {
  multi = await MultiMcp.start([{ id: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'], cwd: PROJECT_ROOT, env: {}, description: 'everything', capabilities: [] }]);
});
afterAll(() => multi.close());

describe('/prompt', () => {
  it('lists the prompts of the running servers with their arguments', async () => {
    const result = await promptLine(multi, '/prompt');
    expect(result).toEqual({ message: expect.stringContaining('everything.args-prompt city=… state=[…] — A prompt with two arguments') });
  });

  it('turns a prompt with its arguments into the question', async () => {
    expect(await promptLine(multi, '/prompt args-prompt city="San Francisco" state=CA')).toEqual({ question: "What's weather in San Francisco, CA?" });
    expect(await promptLine(multi, '/prompt everything.simple-prompt')).toEqual({ question: 'This is a simple prompt without arguments.' });
  });

  it('names a missing required argument and an unknown prompt instead of asking anything', async () => {
    expect(await promptLine(multi, '/prompt args-prompt')).toEqual({ message: 'The prompt "args-prompt" needs city=….' });
    expect(await promptLine(multi, '/prompt nope')).toEqual({ message: expect.stringMatching(/^No prompt named "nope"\. Prompts/) });
  });

  it('recognises only /prompt lines', () => {
    expect(isPromptLine('/prompt x')).toBe(true);
    expect(isPromptLine('/prompts')).toBe(true);
    expect(isPromptLine('what is /prompt?')).toBe(false);
  });
});
