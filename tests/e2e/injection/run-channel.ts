// Runs one channel case as `cortex ask` would (non-interactive, default profile policy) with a planner that writes the case's plan.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgent } from '../../../src/agent/loop.js';
import type { GenerateRequest, GenerateResult, LlmClient } from '../../../src/llm/types.js';
import { createApprovalGate } from '../../../src/policy/approval-gate.js';
import { ownServerIds } from '../../../src/policy/approval-policy.js';
import { SessionMemory } from '../../../src/memory/session-memory.js';
import { Trace } from '../../../src/memory/trace.js';
import { flowPolicyOf } from '../../../src/policy/flow-settings.js';
import type { Sandbox } from '../../../src/sandbox/types.js';
import type { ChannelCase } from './channel-cases.js';
import type { World } from './world.js';

/** A planner that writes the given plans in turn (the last one again after that); perception picks every server. */
class FixedPlanModel implements LlmClient {
  readonly provider = 'scripted';
  readonly model = 'fixed-plan';
  private plans = 0;
  constructor(private readonly bodies: string[]) {}
  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const body = this.bodies[Math.min(this.plans, this.bodies.length - 1)]!;
    if (!request.jsonSchema) this.plans++;
    const text = request.jsonSchema
      ? JSON.stringify({ intent: 'answer the question', entities: [], tool_hint: null, selected_servers: ['documents', 'websearch', 'office', 'board'] })
      : '```javascript\nasync function solve() {\n' + body + '\n}\n```';
    return { text, model: this.model, usage: { promptTokens: 0, completionTokens: 0 }, latencyMs: 0 };
  }
  async embed(): Promise<never> {
    throw new Error('the fixed planner does not embed');
  }
}

/** Sets the world up for the case, asks its question, and resolves with the answer the user reads. */
export async function runChannelCase(world: World, sandbox: Sandbox, c: ChannelCase): Promise<{ answer: string | null; caution: string | null }> {
  world.reset(c.injection?.(world) ?? {});
  const memory = SessionMemory.create({ baseDir: mkdtempSync(join(tmpdir(), 'cortex-channel-memory-')) });
  const approve = createApprovalGate({ policy: { require: [], allow: [], allowAll: c.yes, ownServers: ownServerIds(world.specs) } });
  const result = await runAgent({
    query: c.question(world),
    llm: new FixedPlanModel(c.retryPlan ? [c.plan(world), c.retryPlan(world)] : [c.plan(world)]),
    servers: world.multi.summaries(),
    tools: world.multi.listTools(),
    caller: world.multi,
    approve,
    sandbox,
    sandboxLimits: { maxToolCalls: 5, timeoutMs: 20_000 },
    strategy: 'conservative',
    maxSteps: c.retryPlan ? 2 : 1,
    maxLifelinesPerStep: 1,
    memoryFallbackEnabled: false,
    flowPolicy: flowPolicyOf({ policy: { destinations: [], tools: {}, strict: false } }, world.specs),
    memory,
    trace: new Trace(memory.tracePath),
  });
  return { answer: result.answer, caution: result.caution };
}
