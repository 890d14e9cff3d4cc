// Runs a model's raw reply as the loop does: read it (src/reply/), then run it in the sandbox or return its refusal.
import { runPlan } from '../../src/agent/attempt.js';
import { readReply } from '../../src/reply/read-reply.js';
import type { Sandbox, SandboxResult, SandboxRunOptions } from '../../src/sandbox/types.js';

export function runReply(sandbox: Sandbox, { code, ...options }: SandboxRunOptions): Promise<SandboxResult> {
  return runPlan(sandbox, readReply(code), options);
}
