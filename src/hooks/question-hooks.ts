// One question's hooks: PreToolUse/PostToolUse around its tool caller, PreLLMCall in front of its model, notes for the model.
import { QuestionStoppedError } from '../errors.js';
import type { GenerateRequest, LlmClient } from '../llm/types.js';
import { withGenerate } from '../llm/with-generate.js';
import type { ApprovalDecision, ApproveTool, ToolCaller, ToolInfo, ToolResult } from '../mcp/types.js';
import type { GuardedCalls } from '../agent/types.js';
import type { HookRunner } from './hook-runner.js';

/** Notes from hooks kept for the model per question, and their total size in characters: bounded prompt growth. */
const MAX_HOOK_NOTES = 20;
const MAX_HOOK_NOTES_CHARS = 8_000;

export interface QuestionHooksOptions {
  runner: HookRunner;
  sessionId: string;
  /** The question, sent to every hook as `question` (ours; Claude Code sends the prompt only to UserPromptSubmit). */
  question: string;
  /** What the person said a hook did (a block, a withheld result), in plain words. */
  notify: (message: string) => void;
  signal?: AbortSignal;
}

/** The names a tool matcher is tried against: `<server>.<tool>`, Claude Code's `mcp__<server>__<tool>`, and the bare tool. */
export function toolNames(server: string, tool: string): string[] {
  return [`${server}.${tool}`, `mcp__${server}__${tool}`, tool];
}

export class QuestionHooks {
  /** `additionalContext` the hooks gave so far; every later model request carries them. */
  readonly notes: string[] = [];
  /** The arguments a PreToolUse hook rewrote, by the object the sandbox passed (approve and callTool get the same one). */
  private readonly rewritten = new WeakMap<Record<string, unknown>, Record<string, unknown>>();

  constructor(private readonly options: QuestionHooksOptions) {}

  /** Keeps a hook's note for the model (bounded). */
  addNotes(notes: readonly string[]): void {
    for (const note of notes) {
      const used = this.notes.reduce((n, s) => n + s.length, 0);
      if (this.notes.length >= MAX_HOOK_NOTES || used + note.length > MAX_HOOK_NOTES_CHARS) return;
      this.notes.push(note);
    }
  }

  private base(event: 'PreToolUse' | 'PostToolUse' | 'PreLLMCall') {
    return { ...this.options.runner.base(event, this.options.sessionId), question: this.options.question };
  }

  /**
   * `inner` (the question's flow guard, or the approval gate) behind PreToolUse and PostToolUse. PreToolUse runs in
   * `approve`, before `inner.approve`, so arguments a hook rewrites are what the flow policy and the person judge.
   */
  wrap({ caller: inner, approve: innerApprove }: GuardedCalls): GuardedCalls {
    const { runner } = this.options;
    const approve: ApproveTool = async (tool, args, options) => {
      const judged = await this.preToolUse(tool, args);
      if ('approved' in judged) return judged;
      const concern = judged.ask ? { why: `a hook asks for your approval (${judged.ask})`, yesAllows: true, destinations: [], holds: [] } : undefined;
      if (concern && !innerApprove) return { approved: false, reason: `${concern.why}, and nobody can be asked. Do not call it again for this task.` };
      return innerApprove ? innerApprove(tool, judged.args, concern ? { ...options, concern } : options) : { approved: true };
    };
    const caller: ToolCaller = {
      callTool: async (server, tool, args, options) => {
        const result = await inner.callTool(server, tool, this.rewritten.get(args) ?? args, options);
        if (!runner.has('PostToolUse')) return result;
        return this.postToolUse(server, tool, this.rewritten.get(args) ?? args, result);
      },
      ...(inner.readResource ? { readResource: inner.readResource.bind(inner) } : {}),
    };
    return { caller, approve };
  }

  private async preToolUse(tool: ToolInfo, args: Record<string, unknown>): Promise<ApprovalDecision | { args: Record<string, unknown>; ask: string | null }> {
    const { runner, signal } = this.options;
    if (!runner.has('PreToolUse')) return { args, ask: null };
    const input = { ...this.base('PreToolUse'), tool_name: `mcp__${tool.server}__${tool.remoteName}`, tool_input: args, server: tool.server, tool: tool.remoteName };
    const outcome = await runner.run('PreToolUse', toolNames(tool.server, tool.remoteName), input, signal);
    this.addNotes(outcome.context);
    if (outcome.blocked) {
      this.options.notify(`A hook stopped ${tool.server}.${tool.remoteName}: ${outcome.blocked}`);
      return { approved: false, reason: `a hook blocked it: ${outcome.blocked}` };
    }
    if (outcome.updatedInput) this.rewritten.set(args, outcome.updatedInput);
    return { args: outcome.updatedInput ?? args, ask: outcome.ask };
  }

  private async postToolUse(server: string, tool: string, args: Record<string, unknown>, result: ToolResult): Promise<ToolResult> {
    const input = { ...this.base('PostToolUse'), tool_name: `mcp__${server}__${tool}`, tool_input: args, tool_response: result, server, tool };
    const outcome = await this.options.runner.run('PostToolUse', toolNames(server, tool), input, this.options.signal);
    this.addNotes(outcome.context);
    if (!outcome.blocked) return result;
    this.options.notify(`A hook withheld the result of ${server}.${tool}: ${outcome.blocked}`);
    // The call ran; its result is withheld from the plan, which is told why (as Claude Code tells the model).
    return { isError: true, content: [{ type: 'text', text: `a hook withheld the result: ${outcome.blocked}` }] };
  }

  /**
   * `llm` with PreLLMCall before each request (a block stops the question: QuestionStoppedError) and the hooks'
   * notes added to each prompt.
   */
  llm(llm: LlmClient): LlmClient {
    const { runner, signal } = this.options;
    const generate = async (request: GenerateRequest) => {
      if (runner.has('PreLLMCall')) {
        const input = { ...this.base('PreLLMCall'), model: llm.model, provider: llm.provider, prompt: request.prompt, ...(request.system ? { system: request.system } : {}) };
        const outcome = await runner.run('PreLLMCall', [llm.model, `${llm.provider}:${llm.model}`], input, signal);
        this.addNotes(outcome.context);
        if (outcome.blocked) throw new QuestionStoppedError(`A hook stopped the question before a request to ${llm.model}: ${outcome.blocked}`);
      }
      if (this.notes.length === 0) return llm.generate(request);
      return llm.generate({ ...request, prompt: `${request.prompt}\n\n## Notes from the user's hooks\n${this.notes.map((n) => `- ${n}`).join('\n')}\n` });
    };
    return withGenerate(llm, generate);
  }
}

/** Times a Stop hook may send a question back to work (Claude Code's `stop_hook_active` guards the rest). */
export const MAX_STOP_CONTINUATIONS = 2;

/** UserPromptSubmit: null to go on (its notes kept for the model), else why a hook stopped the question. */
export async function promptSubmitted(hooks: QuestionHooks, runner: HookRunner, sessionId: string, prompt: string, signal?: AbortSignal): Promise<string | null> {
  if (!runner.has('UserPromptSubmit')) return null;
  const outcome = await runner.run('UserPromptSubmit', [], { ...runner.base('UserPromptSubmit', sessionId), prompt }, signal);
  hooks.addNotes(outcome.context);
  return outcome.blocked;
}

/** Stop: null to let the question end, else the reason a hook gives for working on (kept as a note for the model). */
export async function stopRequested(
  hooks: QuestionHooks,
  runner: HookRunner,
  { sessionId, question, status, answer, active, signal }: { sessionId: string; question: string; status: string; answer: string | null; active: boolean; signal?: AbortSignal },
): Promise<string | null> {
  if (!runner.has('Stop')) return null;
  const input = { ...runner.base('Stop', sessionId), question, stop_hook_active: active, status, last_assistant_message: answer ?? '' };
  const outcome = await runner.run('Stop', [], input, signal);
  if (!outcome.blocked) return null;
  hooks.addNotes([`A check the user set up asked to keep working: ${outcome.blocked}`]);
  return outcome.blocked;
}
