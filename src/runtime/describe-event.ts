// Agent events in plain words for a person: one line each, the same in the terminal, the page's log and `cortex mcp`'s progress.
import type { AgentEvent } from '../agent/types.js';
import { firstSentence } from '../sandbox/diagnosis.js';

/** Longest argument preview shown for a tool call. */
const MAX_ARGS_PREVIEW_CHARS = 80;
/** Longest tool error shown on a call's line. */
const MAX_ERROR_PREVIEW_CHARS = 160;
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

export function stageLabel(event: { stage: 'perception' | 'decision'; step: number }): string {
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
