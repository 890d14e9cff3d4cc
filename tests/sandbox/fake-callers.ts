// Test helper: hand-written ToolCallers for behaviour a real server won't show on demand.
import { McpError } from '../../src/errors.js';
import type { ToolCaller, ToolInfo, ToolResult } from '../../src/mcp/types.js';

export const NUMBER_OUTPUT = { type: 'object', properties: { result: { type: 'number' } }, required: ['result'] };

/** A tool with `{a: number, b: number}` input, like the math server's. */
export function binaryTool(name: string): ToolInfo {
  return {
    server: 'fake',
    name,
    remoteName: name,
    description: `${name} two numbers`,
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: NUMBER_OUTPUT,
  };
}

export function numberResult(value: number): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify({ result: value }) }], structuredContent: { result: value } };
}

export interface RecordingCaller extends ToolCaller {
  /** Every call received, with the signal it came with. */
  received: Array<{ server: string; name: string; args: Record<string, unknown>; signal?: AbortSignal; timeoutMs?: number }>;
}

/** Answers each call with `answer(name, args)`; records what it received. */
export function scriptedCaller(answer: (name: string, args: Record<string, unknown>) => Promise<ToolResult> | ToolResult): RecordingCaller {
  const received: RecordingCaller['received'] = [];
  return {
    received,
    async callTool(server, name, args, options = {}) {
      received.push({ server, name, args, ...options });
      return answer(name, args);
    },
  };
}

/** add/multiply computed in process. */
export function arithmeticCaller(): RecordingCaller {
  return scriptedCaller((name, args) => {
    const a = Number(args.a);
    const b = Number(args.b);
    return numberResult(name === 'multiply' ? a * b : a + b);
  });
}

/** A tool that never answers and ignores its signal: only the sandbox's own deadline can end the wait. */
export function silentCaller(): RecordingCaller & { aborted: Promise<void> } {
  let markAborted!: () => void;
  const aborted = new Promise<void>((resolve) => { markAborted = resolve; });
  const caller = scriptedCaller(() => new Promise<ToolResult>(() => undefined));
  return {
    ...caller,
    aborted,
    async callTool(server, name, args, options = {}) {
      options.signal?.addEventListener('abort', () => markAborted(), { once: true });
      return caller.callTool(server, name, args, options);
    },
  };
}

/** A server that dies in the middle of a call, the way MultiMCP reports it. */
export function crashingCaller(): RecordingCaller {
  return scriptedCaller(async () => {
    await Promise.resolve();
    throw new McpError('fake', 'connection closed: the server process exited (code 1) during the call');
  });
}
