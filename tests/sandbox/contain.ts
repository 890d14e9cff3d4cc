// Test helper: runs hostile code and checks the run ended in time, the host is unharmed and the next run works.
import { expect } from 'vitest';
import type { Sandbox, SandboxErrorKind, SandboxLimits, SandboxResult } from '../../src/sandbox/types.js';
import { expectHostUnharmed } from './host-health.js';
import type { MathServer } from './math-server.js';
import { runReply } from '../helpers/run-reply.js';

/** Small limits keep the suite fast; the memory bombs use a longer deadline (see sandbox-runaway.test.ts). */
export const TEST_LIMITS: SandboxLimits = { maxToolCalls: 5, timeoutMs: 1_500, memoryMb: 64, maxOutputChars: 100_000 };

export interface Container {
  /** Runs `body` as the body of solve(); asserts the aftermath; returns the hostile run's result. */
  contain(body: string, limits?: SandboxLimits): Promise<SandboxResult>;
  expectError(body: string, kind: SandboxErrorKind, limits?: SandboxLimits): Promise<string>;
  expectValue(body: string, value: string): Promise<void>;
}

export function container(sandbox: () => Sandbox, math: () => MathServer): Container {
  const contain = async (body: string, limits: SandboxLimits = TEST_LIMITS): Promise<SandboxResult> => {
    const { tools, caller } = math();
    // Which limit ended the run is asserted by the caller (a 'timeout' kind is the deadline's doing); how long it
    // took is not, since a loaded machine must not fail the suite.
    const result = await runReply(sandbox(), { code: `async function solve() {\n${body}\n}`, tools, caller, limits });
    await expectHostUnharmed();
    const next = await runReply(sandbox(), { code: 'async function solve() { return await tools.add({a: 2, b: 3}); }', tools, caller, limits: TEST_LIMITS });
    expect(next).toMatchObject({ ok: true, value: '5' });
    return result;
  };
  return {
    contain,
    async expectError(body, kind, limits) {
      const result = await contain(body, limits);
      expect(result.ok ? `ok: ${result.value}` : result.error.kind).toBe(kind);
      return result.ok ? '' : result.error.message;
    },
    async expectValue(body, value) {
      expect(await contain(body)).toMatchObject({ ok: true, value });
    },
  };
}
