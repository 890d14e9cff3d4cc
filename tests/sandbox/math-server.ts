// Test helper: the built math MCP server behind MultiMCP (the product's own client), as tools + caller.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import type { ToolCaller, ToolInfo } from '../../src/mcp/types.js';
import { PROJECT_ROOT, builtPath } from '../../src/paths.js';
import { createSandbox, type ProcessSandbox } from '../../src/sandbox/create-sandbox.js';

export interface MathServer {
  tools: ToolInfo[];
  caller: ToolCaller;
  close(): Promise<void>;
}

/** Starts `node dist/mcp-servers/math/main.js` over stdio (build first) and lists its tools. */
export async function startMathServer(): Promise<MathServer> {
  const entry = builtPath('mcp-servers/math/main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npx tsc -p tsconfig.json\` first`);
  const multi = await MultiMcp.start([
    { id: 'math', command: process.execPath, args: [entry], cwd: PROJECT_ROOT, env: {}, description: 'math', capabilities: [] },
  ]);
  const status = multi.statuses()[0]!;
  if (status.state !== 'ready') throw new Error(`math server did not start: ${status.error}`);
  return { tools: multi.listTools(), caller: multi, close: () => multi.close() };
}

/** Starts the math server and a sandbox before a file's tests, hands them to `use`, and closes both after the tests. */
export function withMathSandbox(use: (started: { math: MathServer; sandbox: ProcessSandbox }) => void): void {
  let started: { math: MathServer; sandbox: ProcessSandbox } | undefined;
  beforeAll(async () => {
    started = { math: await startMathServer(), sandbox: createSandbox() };
    use(started);
  });
  afterAll(async () => {
    await started?.sandbox.close();
    await started?.math.close();
  });
}

/** True when this (the host) process has isolated-vm's native module mapped: it never should. */
export function hostLoadedIsolatedVm(): boolean {
  const maps = '/proc/self/maps';
  return existsSync(maps) && /isolated[-_]vm[^/\n]*\.node/.test(readFileSync(maps, 'utf8'));
}
