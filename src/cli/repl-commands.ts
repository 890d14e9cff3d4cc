// The REPL's slash commands: /help, /new, /model, /sessions, /stats, /memory, /save, /clear, /exit.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { AgentRunResult } from '../agent/types.js';
import { findAgentsFiles } from '../config/agents-md.js';
import { errorMessage } from '../errors.js';
import { listSessions } from '../memory/session-files.js';
import { skillFromTrace } from '../skills/make-skill.js';
import { checkSkillName, writeSkill } from '../skills/skill-file.js';
import type { LoadedConfig } from '../config/load-config.js';
import { modelRefusal, printChatModels } from './model-choice.js';
import type { Output } from './output.js';
import { plural, tokenFigures } from '../runtime/describe-event.js';
import type { Runtime } from '../runtime/runtime.js';
import { sessionLine } from './sessions-command.js';

/** Sessions /sessions lists. */
const SESSIONS_LISTED = 10;

export const REPL_HELP = [
  'Type a question and press Enter. End a line with \\ to continue on the next; a paste is one message.',
  '  /new            start a new session',
  '  /model [NAME]   list the models you can use (current one marked), or switch (a models.yaml key, ollama:NAME, auto)',
  '  /sessions       list recent sessions (continue one with: cortex --session ID)',
  '  /stats          questions, tokens, cost and time in this session',
  '  /memory [edit]  the standing instructions (AGENTS.md files) in use, or open the nearest in $EDITOR',
  '  /save NAME      save the plan that answered the last question as a skill (cortex skills run NAME)',
  '  /prompt [NAME]  list the MCP servers\' prompts, or ask one (/prompt NAME arg=value …)',
  '  /clear          clear the screen',
  '  /exit           quit (or Ctrl-D)',
  'Ctrl-C cancels a running question, or clears the line.',
  'Up/Down walk the earlier questions (kept between runs); Ctrl-R searches them as you type (Ctrl-R again: older).',
].join('\n');

/** What the REPL counts for /stats. */
export class SessionStats {
  questions = 0;
  answered = 0;
  gaveUp = 0;
  cancelled = 0;
  /** Questions stopped by an error (the model unreachable or refusing), with no result. */
  failed = 0;
  promptTokens = 0;
  completionTokens = 0;
  totalMs = 0;
  /** US dollars spent, where every model's price was known; null once one was not. */
  costUsd: number | null = 0;

  add(result: AgentRunResult): void {
    const cost = result.spend ? result.spend.cost_usd : null;
    this.costUsd = this.costUsd === null || cost === null ? null : this.costUsd + cost;
    this.questions++;
    if (result.status === 'answered') this.answered++;
    else if (result.status === 'gave_up') this.gaveUp++;
    else this.cancelled++;
    this.promptTokens += result.usage.prompt_tokens;
    this.completionTokens += result.usage.completion_tokens;
    this.totalMs += result.timings.total_ms;
  }

  /** A question that stopped with an error instead of a result. */
  addFailure(): void {
    this.questions++;
    this.failed++;
  }

  describe(): string {
    const outcomes = `${this.answered} answered, ${this.gaveUp} gave up, ${this.failed} failed, ${this.cancelled} cancelled`;
    const cost = this.costUsd === null ? 'cost unknown (no price for the model)' : `about $${this.costUsd.toFixed(4)}`;
    return `${plural(this.questions, 'question')} (${outcomes}) · ${tokenFigures(this.promptTokens, this.completionTokens)} · ${cost} · ${(this.totalMs / 1000).toFixed(1)} s`;
  }
}

export interface ReplCommandContext {
  runtime: Runtime;
  /** The loaded profile and models, for /model's listing. */
  config: LoadedConfig;
  out: Output;
  memoryDir: string;
  /** The profile's skills folder, for /save. */
  skillsDir: string;
  stats: SessionStats;
  /** Resets what the REPL counts (a new session). */
  resetStats: () => void;
  /** Warns when the provider does not serve the current model. */
  checkModel: () => Promise<void>;
}

/** Runs one command; returns 'exit' to leave the REPL. Never throws: a failure is printed. */
export async function runReplCommand(name: string, arg: string, ctx: ReplCommandContext): Promise<'exit' | 'continue'> {
  const { runtime, out } = ctx;
  switch (name) {
    case 'exit':
    case 'quit':
    case 'q':
      return 'exit';
    case 'help':
    case '?':
      out.error(REPL_HELP);
      return 'continue';
    case 'new':
      runtime.newSession();
      ctx.resetStats();
      out.error(`new session ${runtime.memory.id}`);
      return 'continue';
    case 'clear':
      if (process.stdout.isTTY) process.stdout.write('\x1b[2J\x1b[H');
      return 'continue';
    case 'stats':
      out.error(`session ${runtime.memory.id} · ${ctx.stats.describe()}`);
      return 'continue';
    case 'model':
      try {
        if (!arg) {
          await printChatModels(ctx.config, runtime.llm, out);
          return 'continue';
        }
        const refusal = await modelRefusal(ctx.config, arg.trim());
        if (refusal) {
          out.error(out.err.red(`${refusal} Still using ${runtime.llm.provider === 'none' ? 'no model' : `${runtime.llm.provider} ${runtime.llm.model}`}.`));
          return 'continue';
        }
        await runtime.useModel(arg.trim(), out);
        await ctx.checkModel();
      } catch (err) {
        out.error(out.err.red(`error: ${errorMessage(err)}`));
      }
      return 'continue';
    case 'memory':
      showOrEditInstructions(arg, out);
      return 'continue';
    case 'sessions': {
      const sessions = await listSessions(ctx.memoryDir, { limit: SESSIONS_LISTED }).catch(() => []);
      if (sessions.length === 0) out.error('No saved sessions yet.');
      for (const s of sessions) out.error(sessionLine(s, out.err));
      return 'continue';
    }
    case 'save':
      try {
        const skill = await skillFromTrace({ name: checkSkillName(arg.trim()), traceFile: runtime.memory.tracePath, sessionId: runtime.memory.id });
        const path = await writeSkill(ctx.skillsDir, skill);
        out.error(`Saved as ${skill.name} (${Object.keys(skill.parameters).join(', ') || 'no arguments'}) in ${path}; run it with: cortex skills run ${skill.name}`);
      } catch (err) {
        out.error(out.err.red(`error: ${errorMessage(err)}`));
      }
      return 'continue';
    default:
      out.error(out.err.red(`unknown command /${name}: type /help for the commands`));
      return 'continue';
  }
}

/**
 * `/memory`: the AGENTS.md files the plans are given (the user's, then the repository's down to this folder), each
 * with its first line. `/memory edit`: opens the nearest one (or a new AGENTS.md here) in $VISUAL or $EDITOR and waits.
 */
function showOrEditInstructions(arg: string, out: Output): void {
  const files = findAgentsFiles();
  if (arg !== 'edit') {
    if (files.length === 0) out.error('No standing instructions: no AGENTS.md here, above it up to the repository root, or in your config folder. /memory edit writes one here.');
    for (const f of files) out.error(`${f.path}${f.cut ? ' (cut to fit)' : ''}: ${f.text.split('\n')[0]}`);
    return;
  }
  const path = files.at(-1)?.path ?? join(process.cwd(), 'AGENTS.md');
  const editor = process.env.VISUAL || process.env.EDITOR || 'vi';
  const run = spawnSync(editor, [path], { stdio: 'inherit', shell: process.platform === 'win32' });
  if (run.error || run.status !== 0) out.error(out.err.red(`error: ${editor} ${path} did not finish (${run.error?.message ?? `exit ${run.status}`})`));
  else out.error(`${path} saved; it reaches the plans from the next start of Cortex-R.`);
}
