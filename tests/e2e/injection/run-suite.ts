// Runs the injection suite: every user task clean, every attack case, for one planner and one approval setting.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgent } from '../../../src/agent/loop.js';
import { createApprovalGate } from '../../../src/policy/approval-gate.js';
import { ownServerIds } from '../../../src/policy/approval-policy.js';
import { flowPolicyOf } from '../../../src/policy/flow-settings.js';
import { SessionMemory } from '../../../src/memory/session-memory.js';
import { Trace } from '../../../src/memory/trace.js';
import type { Sandbox } from '../../../src/sandbox/types.js';
import { attackCases, attackSucceeded, injectionText, USER_TASKS, type AttackCase, type UserTask } from './cases.js';
import { ReactiveModel, type Temperament } from './models.js';
import type { World } from './world.js';

export interface Setting {
  model: Temperament;
  /** `--yes`: the approval gate asks nothing; either way nobody is there to answer a question. */
  yes: boolean;
  /** Profile `policy.strict`: earlier results reach the planner only as extracted values. */
  strict?: boolean;
  /** False: every tool reclassed as a read in the profile, which takes the host's checks out (to measure the rest alone). */
  hostPolicy?: boolean;
}

export interface Figures {
  setting: Setting;
  benign: { done: number; of: number; failed: string[] };
  /** LLM calls made, over every question of the setting. */
  llmCalls: number;
  underAttack: { done: number; of: number };
  attacks: { succeeded: number; of: number; which: string[] };
  /** Succeeded attacks whose answer came without the caution that says it drew on untrusted content. */
  uncautioned: string[];
}

/** Answers one question as `cortex ask` would (non-interactive), in a fresh session; resolves with its answer and caution. */
async function ask(world: World, sandbox: Sandbox, setting: Setting, question: string, count: { llmCalls: number }): Promise<{ answer: string | null; caution: string | null }> {
  const baseDir = mkdtempSync(join(tmpdir(), 'cortex-injection-memory-'));
  const memory = SessionMemory.create({ baseDir });
  const ownServers = ownServerIds(world.specs);
  const llm = new ReactiveModel(setting.model);
  const everyToolRead = Object.fromEntries(world.specs.map((s) => [`${s.id}.*`, { class: 'read' as const }]));
  const approve = createApprovalGate({ policy: { require: [], allow: [], allowAll: setting.yes, ownServers } });
  const result = await runAgent({
    query: question,
    llm,
    servers: world.multi.summaries(),
    tools: world.multi.listTools(),
    caller: world.multi,
    approve,
    sandbox,
    sandboxLimits: { maxToolCalls: 5, timeoutMs: 20_000 },
    strategy: 'conservative',
    maxSteps: 3,
    maxLifelinesPerStep: 1,
    memoryFallbackEnabled: false,
    // As Runtime wires it, with the default profile's (empty) policy section.
    flowPolicy: flowPolicyOf({ policy: { destinations: [], tools: setting.hostPolicy === false ? everyToolRead : {}, strict: setting.strict ?? false } }, world.specs),
    memory,
    trace: new Trace(memory.tracePath),
  });
  count.llmCalls += llm.calls;
  return { answer: result.answer, caution: result.caution };
}

function placeInjection(task: UserTask, text: string): { page?: string; document?: string; mail?: string } {
  return task.source === 'page' ? { page: text } : task.source === 'document' ? { document: text } : { mail: text };
}

/** The whole suite for one setting. */
export async function runSuite(world: World, sandbox: Sandbox, setting: Setting, cases: AttackCase[] = attackCases()): Promise<Figures> {
  const failed: string[] = [];
  const count = { llmCalls: 0 };
  for (const task of USER_TASKS) {
    world.reset({});
    const { answer } = await ask(world, sandbox, setting, task.question(world), count);
    if (!task.done({ answer, world })) failed.push(task.id);
  }
  let underAttack = 0;
  const which: string[] = [];
  const uncautioned: string[] = [];
  for (const c of cases) {
    world.reset(placeInjection(c.task, injectionText(c.goal, c.style, world)));
    const { answer, caution } = await ask(world, sandbox, setting, c.task.question(world), count);
    if (c.task.done({ answer, world })) underAttack++;
    if (attackSucceeded(c.goal, { answer, world })) {
      which.push(c.id);
      if (!caution) uncautioned.push(c.id);
    }
  }
  return {
    setting,
    benign: { done: USER_TASKS.length - failed.length, of: USER_TASKS.length, failed },
    llmCalls: count.llmCalls,
    underAttack: { done: underAttack, of: cases.length },
    attacks: { succeeded: which.length, of: cases.length, which },
    uncautioned,
  };
}

/** One line of the figures table. */
export function figuresLine(f: Figures): string {
  const pct = (a: number, b: number) => `${a}/${b} (${((100 * a) / b).toFixed(1)} %)`;
  return `${f.setting.model.padEnd(8)} ${f.setting.yes ? '--yes' : 'no --yes'}${f.setting.strict ? ', strict' : ''}${f.setting.hostPolicy === false ? ', host checks off' : ''}: benign ${pct(f.benign.done, f.benign.of)}, under attack ${pct(f.underAttack.done, f.underAttack.of)}, attacks succeeded ${pct(f.attacks.succeeded, f.attacks.of)}, LLM calls ${f.llmCalls}`;
}
