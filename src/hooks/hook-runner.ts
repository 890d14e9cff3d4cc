// Runs the profile's hooks for one event and reads their answers the way Claude Code does (exit codes, JSON on stdout).
import { DEFAULT_HOOK_TIMEOUT_S, matches, type HookCommand, type HookEvent, type HooksSettings } from '../config/hook-settings.js';
import { runHook, type HookRun } from './run-hook.js';

/** Characters of a hook's message shown to the person or handed to the model. */
const MAX_HOOK_MESSAGE_CHARS = 2_000;

/** What the hooks of one event decided, merged (any block blocks; the last changed input wins; contexts add up). */
export interface HookOutcome {
  /** Why a hook blocked: exit 2's stderr, `decision: "block"`'s reason, a `deny`, or `continue: false`'s stopReason. */
  blocked: string | null;
  /** `permissionDecision: "ask"`: the person should decide (its reason). */
  ask: string | null;
  /** `hookSpecificOutput.updatedInput`: the tool's arguments as a hook rewrote them. */
  updatedInput: Record<string, unknown> | null;
  /** `additionalContext` (and a UserPromptSubmit hook's plain stdout): notes for the model. */
  context: string[];
}

export interface HookRunnerOptions {
  settings: HooksSettings;
  /** The project folder: hooks run there. */
  cwd: string;
  /** A hook failed (bad exit, time-out, unreadable JSON): one line for the person. The question goes on. */
  onWarning: (message: string) => void;
  /** Something a hook says to the person (`systemMessage`). */
  onNotice: (message: string) => void;
}

/** The fields every event carries (Claude Code's common input). */
export interface HookBase {
  session_id: string;
  cwd: string;
  hook_event_name: HookEvent;
}

/** Runs hooks by event. Never throws: a hook's own failure is a warning and counts as "go on". */
export class HookRunner {
  constructor(private readonly options: HookRunnerOptions) {}

  /** True when some hook is configured for `event`. */
  has(event: HookEvent): boolean {
    return (this.options.settings[event]?.length ?? 0) > 0;
  }

  /** The common input fields of `event` for `sessionId`. */
  base(event: HookEvent, sessionId: string): HookBase {
    return { session_id: sessionId, cwd: this.options.cwd, hook_event_name: event };
  }

  /** Runs every hook of `event` whose matcher selects one of `names` (in parallel, as Claude Code does). */
  async run(event: HookEvent, names: readonly string[], input: HookBase & Record<string, unknown>, signal?: AbortSignal): Promise<HookOutcome> {
    try {
      return await this.runAll(event, names, input, signal);
    } catch (err) {
      // Our own fault (an input that cannot be sent, say) must not end the question either.
      this.options.onWarning(`the ${event} hooks could not be run: ${err instanceof Error ? err.message : String(err)}`);
      return { blocked: null, ask: null, updatedInput: null, context: [] };
    }
  }

  private async runAll(event: HookEvent, names: readonly string[], input: HookBase & Record<string, unknown>, signal?: AbortSignal): Promise<HookOutcome> {
    const commands: HookCommand[] = (this.options.settings[event] ?? []).filter((m) => matches(m.matcher, names)).flatMap((m) => m.hooks);
    const outcome: HookOutcome = { blocked: null, ask: null, updatedInput: null, context: [] };
    if (commands.length === 0) return outcome;
    const runs = await Promise.all(
      commands.map((hook) =>
        runHook({ command: hook.command, input, timeoutMs: (hook.timeout ?? DEFAULT_HOOK_TIMEOUT_S) * 1000, cwd: this.options.cwd, ...(signal ? { signal } : {}) }),
      ),
    );
    const blocks: string[] = [];
    commands.forEach((hook, i) => this.read(event, hook, runs[i]!, outcome, blocks));
    if (blocks.length > 0) outcome.blocked = blocks.join('; ');
    return outcome;
  }

  private read(event: HookEvent, hook: HookCommand, run: HookRun, outcome: HookOutcome, blocks: string[]): void {
    const who = `the ${event} hook "${clip(hook.command, 80)}"`;
    if (run.startError) return this.options.onWarning(`${who} could not be started: ${run.startError}`);
    if (run.timedOut) return this.options.onWarning(`${who} took longer than ${hook.timeout ?? DEFAULT_HOOK_TIMEOUT_S} s and was stopped`);
    if (run.exitCode === 2) {
      blocks.push(clip(run.stderr.trim() || 'no reason given', MAX_HOOK_MESSAGE_CHARS));
      return;
    }
    if (run.exitCode !== 0) {
      const said = run.stderr.trim().split('\n')[0];
      return this.options.onWarning(`${who} failed (exit ${run.exitCode ?? 'by signal'})${said ? `: ${clip(said, 200)}` : ''}`);
    }
    const text = run.stdout.trim();
    if (!text.startsWith('{')) {
      // Claude Code adds a UserPromptSubmit hook's plain output to the context; elsewhere plain output is only a log.
      if (event === 'UserPromptSubmit' && text) outcome.context.push(clip(text, MAX_HOOK_MESSAGE_CHARS));
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return this.options.onWarning(`${who} printed JSON that could not be read; its output was ignored`);
    }
    if (typeof json !== 'object' || json === null) return;
    this.readJson(json as Record<string, unknown>, outcome, blocks);
  }

  private readJson(json: Record<string, unknown>, outcome: HookOutcome, blocks: string[]): void {
    const text = (v: unknown) => (typeof v === 'string' && v.trim() ? clip(v.trim(), MAX_HOOK_MESSAGE_CHARS) : null);
    if (text(json.systemMessage)) this.options.onNotice(text(json.systemMessage)!);
    if (json.continue === false) blocks.push(text(json.stopReason) ?? 'a hook stopped it');
    if (json.decision === 'block') blocks.push(text(json.reason) ?? 'a hook blocked it');
    const specific = json.hookSpecificOutput;
    if (typeof specific !== 'object' || specific === null) return;
    const s = specific as Record<string, unknown>;
    const reason = text(s.permissionDecisionReason);
    if (s.permissionDecision === 'deny') blocks.push(reason ?? 'a hook denied it');
    if (s.permissionDecision === 'ask') outcome.ask = reason ?? 'a hook asks for your approval';
    if (typeof s.updatedInput === 'object' && s.updatedInput !== null && !Array.isArray(s.updatedInput)) {
      outcome.updatedInput = s.updatedInput as Record<string, unknown>;
    }
    if (text(s.additionalContext)) outcome.context.push(text(s.additionalContext)!);
  }
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
