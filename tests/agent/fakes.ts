// Hand-written fakes for agent tests: a scripted Sandbox, a recording ToolCaller, sample servers and tools.
import { runAgent } from '../../src/agent/loop.js';
import type { AgentEvent, AgentOptions } from '../../src/agent/types.js';
import { ScriptedLlm, type ScriptedTurn } from '../helpers/scripted-llm.js';
import type { ServerSummary } from '../../src/mcp/types.js';
import { SessionMemory } from '../../src/memory/session-memory.js';
import { Trace } from '../../src/memory/trace.js';
import type { ToolCaller, ToolInfo, ToolResult } from '../../src/mcp/types.js';
import type { Sandbox, SandboxResult, SandboxRunOptions, ToolCallRecord } from '../../src/sandbox/types.js';

/** One scripted sandbox run: a result, or a function of the run's options. */
export type SandboxTurn = SandboxResult | ((options: SandboxRunOptions) => SandboxResult | Promise<SandboxResult>);

/**
 * A Sandbox that replays scripted results, records every run's options, and reports each
 * scripted tool call through onToolCall (start, then end) as the real one does.
 */
export class FakeSandbox implements Sandbox {
  readonly runs: SandboxRunOptions[] = [];
  closed = false;
  constructor(private readonly turns: SandboxTurn[]) {}

  async run(options: SandboxRunOptions): Promise<SandboxResult> {
    this.runs.push(options);
    const turn = this.turns.shift();
    if (!turn) throw new Error(`FakeSandbox: no scripted result for run #${this.runs.length}`);
    const result = typeof turn === 'function' ? await turn(options) : turn;
    for (const record of result.calls) {
      options.onToolCall?.({ phase: 'start', record: { ...record, ok: false, ms: 0 } });
      options.onToolCall?.({ phase: 'end', record });
    }
    return result;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** A ToolCaller that records calls and answers every call with `{result: 'ok'}`. */
export class FakeToolCaller implements ToolCaller {
  readonly calls: Array<{ server: string; name: string; args: Record<string, unknown> }> = [];
  async callTool(server: string, name: string, args: Record<string, unknown>): Promise<ToolResult> {
    this.calls.push({ server, name, args });
    return { content: [{ type: 'text', text: '{"result":"ok"}' }], structuredContent: { result: 'ok' } };
  }
}

export function call(tool: string, args: unknown, ok = true, ms = 3): ToolCallRecord {
  return ok ? { tool, args, ok, ms } : { tool, args, ok, ms, error: `${tool} failed` };
}

export function okResult(value: string, calls: ToolCallRecord[] = []): SandboxResult {
  return { ok: true, value, logs: [], calls, ms: 5 };
}

export function errorResult(kind: 'runtime' | 'timeout' | 'syntax' | 'call_cap', message: string, calls: ToolCallRecord[] = [], logs: string[] = []): SandboxResult {
  return { ok: false, error: { kind, message }, logs, calls, ms: 5 };
}

export const SERVERS: ServerSummary[] = [
  { id: 'math', description: 'Arithmetic and number tools', capabilities: ['add', 'multiply'] },
  { id: 'documents', description: 'Search stored documents', capabilities: ['search_stored_documents'] },
  { id: 'websearch', description: 'Search the web', capabilities: ['duckduckgo_search_results'] },
];

function tool(server: string, name: string, properties: Record<string, unknown>): ToolInfo {
  return { server, name, remoteName: name, description: `the ${name} tool`, inputSchema: { type: 'object', properties, required: Object.keys(properties) } };
}

export const TOOLS: ToolInfo[] = [
  tool('math', 'add', { a: { type: 'number' }, b: { type: 'number' } }),
  tool('math', 'multiply', { a: { type: 'number' }, b: { type: 'number' } }),
  tool('documents', 'search_stored_documents', { query: { type: 'string' } }),
  tool('websearch', 'duckduckgo_search_results', { query: { type: 'string' } }),
];

/** A perception answer selecting `servers`. */
export function perceptionJson(servers: string[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ intent: 'do the task', entities: [], tool_hint: '', selected_servers: servers, ...extra });
}

/** A decision answer: solve() in a fence, with a marker to recognise it by. */
export function plan(body: string): string {
  return '```javascript\nasync function solve() {\n  ' + body + '\n}\n```';
}

/** The tool catalogue section of a decision prompt (the examples elsewhere may name other tools). */
export function catalogueSection(prompt: string): string {
  const start = prompt.indexOf('## Tools you may call');
  const end = prompt.indexOf('## How solve() runs');
  if (start < 0 || end < start) throw new Error('no catalogue section in the prompt');
  return prompt.slice(start, end);
}

/** A run of the agent loop on scripted parts: the model's turns, the sandbox's results, a memory under `baseDir`. */
export function setupRun(baseDir: string, turns: ScriptedTurn[], sandboxTurns: SandboxTurn[], overrides: Partial<AgentOptions> = {}) {
  const llm = new ScriptedLlm({ turns, usage: { promptTokens: 10, completionTokens: 4 } });
  const sandbox = new FakeSandbox(sandboxTurns);
  const caller = new FakeToolCaller();
  const memory = overrides.memory ?? SessionMemory.create({ baseDir });
  const trace = new Trace(memory.tracePath);
  const events: AgentEvent[] = [];
  const options: AgentOptions = {
    query: 'Add 2 and 3',
    llm,
    servers: SERVERS,
    tools: TOOLS,
    caller,
    sandbox,
    sandboxLimits: { maxToolCalls: 4 },
    strategy: 'conservative',
    maxSteps: 3,
    maxLifelinesPerStep: 2,
    memoryFallbackEnabled: false,
    memory,
    trace,
    onEvent: (event) => events.push(event),
    ...overrides,
  };
  return { llm, sandbox, caller, memory, trace, events, run: () => runAgent(options) };
}
