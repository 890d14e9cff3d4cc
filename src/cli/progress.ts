// The live display of a run on stderr: on a terminal, a spinner line with what is happening, the model's elapsed
// time and tokens so far, and lines that stay for what happened; elsewhere, plain lines. `-v` adds the plan as the
// model writes it, each request's figures and the code that runs.
import type { AgentEvent } from '../agent/types.js';
import { firstSentence } from '../sandbox/diagnosis.js';
import type { Output } from './output.js';
import { createStatusLine } from './status-line.js';

/** Longest argument preview shown for a tool call. */
const MAX_ARGS_PREVIEW_CHARS = 80;
/** Longest tool error shown on a call's line. */
const MAX_ERROR_PREVIEW_CHARS = 160;
/** How often the spinner line is redrawn on a terminal: often enough that the seconds visibly count. */
export const SPINNER_INTERVAL_MS = 120;
const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A call's arguments as the code wrote them (`2,3` for `add(2, 3)`), else as sent; cut to MAX_ARGS_PREVIEW_CHARS. */
function preview(record: { args: unknown; passed?: string }): string {
  const text = record.passed ?? JSON.stringify(record.args) ?? '';
  return text.length <= MAX_ARGS_PREVIEW_CHARS ? text : `${text.slice(0, MAX_ARGS_PREVIEW_CHARS - 1)}…`;
}

/** A server's progress report: `3/10 copying files`, or `3 copying files` without a total. */
export function progressText({ progress, total, message }: { progress: number; total?: number; message?: string }): string {
  const count = total !== undefined ? `${progress}/${total}` : String(progress);
  return message ? `${count} ${message.slice(0, MAX_ARGS_PREVIEW_CHARS)}` : count;
}

/** A count and its noun: `1 step`, `3 steps`, `2 retries`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The token figures of a run or a session: `1,234 tokens (1,000 in, 234 out)`. */
export function tokenFigures(promptTokens: number, completionTokens: number): string {
  const count = (n: number) => n.toLocaleString('en-US');
  return `${count(promptTokens + completionTokens)} tokens (${count(promptTokens)} in, ${count(completionTokens)} out)`;
}

function stageLabel(event: { stage: 'perception' | 'decision'; step: number }): string {
  return event.stage === 'perception' ? 'choosing servers' : `writing the plan for step ${event.step}`;
}

/** The text of an event in plain words, or null for events shown only as the spinner (or not at all). */
export function describeEvent(event: AgentEvent): string | null {
  switch (event.type) {
    case 'perceiving':
      return 'choosing which servers the question needs';
    case 'perceived':
      return `servers: ${event.servers.join(', ') || '(none)'}${event.fallback ? ' (all of them: the model made no usable choice)' : ''}`;
    case 'planning':
      return `step ${event.step} of ${event.maxSteps}: planning${event.lifelinesLeft > 0 ? ` (${plural(event.lifelinesLeft, 'retry', 'retries')} left)` : ' (no retries left)'}${event.narrowed ? ', tools narrowed to recent successes' : ''}`;
    case 'running':
      return 'running the plan';
    case 'tool_call':
      // The one record standing for a flood of refused calls is shown once, as its summary.
      if (event.record.summarised !== undefined) return event.phase === 'end' ? `  ✗ ${event.record.error ?? ''} (${event.record.tool})` : null;
      return event.phase === 'start'
        ? `  → ${event.record.tool}(${preview(event.record)})${event.record.progress ? ` ${progressText(event.record.progress)}` : ''}`
        : `  ${event.record.ok ? '✓' : '✗'} ${event.record.tool}(${preview(event.record)}) ${event.record.ms} ms${event.record.error ? `: ${firstSentence(event.record.error, MAX_ERROR_PREVIEW_CHARS)}` : ''}`;
    case 'outcome':
      return event.outcome === 'final_answer'
        ? `step ${event.step}: answered`
        : event.outcome === 'further_processing'
          ? `step ${event.step}: result passed to the next step`
          : `step ${event.step}: ${event.diagnosis ?? 'the plan did not work'}${event.said ? `\n  the model said: ${event.said.replace(/\s+/g, ' ')}` : ''}`;
    case 'llm_start':
      return `${stageLabel(event)} (${event.model})`;
    case 'llm_retry':
      // The last attempt is no retry to count on: it says so, rather than "retrying".
      return event.attempt >= event.maxAttempts
        ? `the model's request failed (${event.reason}); one last try in ${Math.ceil(event.delayMs / 1000)} s (no retries left)`
        : `the model's request failed (${event.reason}); retrying (${event.attempt}/${event.maxAttempts}) in ${Math.ceil(event.delayMs / 1000)} s`;
    case 'llm_notice':
      return `note: ${event.message}`;
    case 'llm_end':
      return `${event.stage}: ${event.model}, ${(event.latencyMs / 1000).toFixed(1)} s, ${event.promptTokens} tokens in, ${event.completionTokens} out${event.error ? `, failed: ${event.error}` : ''}`;
    case 'llm_text':
    case 'result':
      return null;
  }
}

/** Returns the onEvent handler for runAgent, writing to stderr as the output mode allows. */
export function createProgress(out: Output): { onEvent: (event: AgentEvent) => void; done: () => void } {
  const now = () => performance.now();
  const status = createStatusLine(out);
  // With --json, stdout holds the one object and progress still goes to stderr; only -q silences it.
  const show = out.verbose || !out.quiet;
  const style = out.err;
  /** What the spinner line says, and since when the model has been working on it. */
  let activity: { label: string; model?: string; since: number; tokens: number } | undefined;
  let frame = 0;
  /** True while -v prints the plan's text as it streams (the spinner line then stays away). */
  let streaming = false;
  /** True when the latest plan was already shown as it streamed. */
  let planShown = false;
  let ticker: NodeJS.Timeout | undefined;

  const render = () => {
    // Spinner frames are for a terminal only: elsewhere (a log file, a pipe) each activity is one plain line.
    if (!activity || streaming || !out.tty) return;
    const seconds = Math.floor((now() - activity.since) / 1000);
    const figures = activity.model ? ` · ${activity.model} · ${seconds} s${activity.tokens ? ` · ${activity.tokens} tokens` : ''}` : '';
    status.transient(`${SPINNER_FRAMES[frame++ % SPINNER_FRAMES.length]} ${activity.label}${figures}`);
  };
  /** Shows what is happening now; without a terminal, as a line unless `plain` is false (a line that follows says it). */
  const begin = (label: string, model?: string, plain = true) => {
    activity = { label, ...(model ? { model } : {}), since: now(), tokens: 0 };
    if (!out.tty) {
      if (plain) status.transient(label + (model ? ` (${model})` : ''));
      return;
    }
    render();
    ticker ??= setInterval(render, SPINNER_INTERVAL_MS);
    ticker.unref();
  };
  const stop = () => {
    if (ticker) clearInterval(ticker);
    ticker = undefined;
    activity = undefined;
  };
  const stay = (text: string) => status.line(text);

  const onEvent = (event: AgentEvent) => {
    if (!show) return;
    switch (event.type) {
      case 'perceiving':
        return begin(describeEvent(event)!, undefined, false);
      case 'running':
        return begin(describeEvent(event)!);
      case 'llm_start':
        planShown = false;
        return begin(stageLabel(event), event.model);
      case 'llm_text':
        if (activity) activity.tokens = event.completionTokens;
        if (out.verbose && event.stage === 'decision') {
          if (!streaming) {
            status.clear();
            process.stderr.write(style.dim(`── plan for step ${event.step} ──\n`));
          }
          streaming = true;
          planShown = true;
          process.stderr.write(style.dim(event.delta));
        }
        return;
      case 'llm_end':
        if (streaming) process.stderr.write('\n');
        streaming = false;
        stop();
        if (out.verbose || event.error) stay(style.dim(describeEvent(event)!));
        return;
      case 'llm_retry':
      case 'llm_notice':
        status.clear();
        stay(describeEvent(event)!);
        return render();
      case 'tool_call': {
        const text = describeEvent(event);
        if (text === null) return;
        if (event.phase === 'start') return begin(text.trim(), undefined, false);
        stop();
        return stay(event.record.ok ? text.replace('✓', style.green('✓')) : style.red(text));
      }
      case 'outcome': {
        stop();
        const text = describeEvent(event)!;
        return stay(event.outcome === 'final_answer' || event.outcome === 'further_processing' ? style.dim(text) : style.red(text));
      }
      case 'planning':
      case 'perceived':
        stop();
        return stay(style.dim(describeEvent(event)!));
      case 'result':
        return;
    }
  };
  return {
    onEvent: (event) => {
      // With -v, the plan about to run is shown unless it was shown as it streamed.
      if (out.verbose && event.type === 'running' && !planShown && show) {
        status.clear();
        process.stderr.write(style.dim(`── plan for step ${event.step} ──\n${event.code}\n`));
      }
      onEvent(event);
    },
    done: () => {
      stop();
      status.close();
    },
  };
}
