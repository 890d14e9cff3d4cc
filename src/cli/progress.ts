// The live display of a run: one rewritten status line on a TTY, plain lines otherwise, all on stderr.
import type { AgentEvent } from '../agent/types.js';
import type { Output } from './output.js';
import { createStatusLine } from './status-line.js';

/** Longest argument preview shown for a tool call. */
const MAX_ARGS_PREVIEW_CHARS = 80;

function preview(args: unknown): string {
  const text = JSON.stringify(args) ?? '';
  return text.length <= MAX_ARGS_PREVIEW_CHARS ? text : `${text.slice(0, MAX_ARGS_PREVIEW_CHARS - 1)}…`;
}

/** A server's progress report: `3/10 copying files`, or `3 copying files` without a total. */
export function progressText({ progress, total, message }: { progress: number; total?: number; message?: string }): string {
  const count = total !== undefined ? `${progress}/${total}` : String(progress);
  return message ? `${count} ${message.slice(0, MAX_ARGS_PREVIEW_CHARS)}` : count;
}

/** The text of an event, or null for events the display does not show. */
export function describeEvent(event: AgentEvent): string | null {
  switch (event.type) {
    case 'perceiving':
      return `perceiving (step ${event.step}/${event.maxSteps})`;
    case 'perceived':
      return `servers: ${event.servers.join(', ') || '(none)'}${event.fallback ? ' (all: perception gave no usable choice)' : ''}`;
    case 'planning':
      return `planning step ${event.step}/${event.maxSteps}, ${event.lifelinesLeft} lifelines left, ${event.strategy}${event.narrowed ? ', tools narrowed to recent successes' : ''}`;
    case 'running':
      return 'running solve()';
    case 'tool_call':
      // The one record standing for a flood of refused calls is shown once, as its summary.
      if (event.record.summarised !== undefined) return event.phase === 'end' ? `  ✗ ${event.record.error ?? ''} (${event.record.tool})` : null;
      return event.phase === 'start'
        ? `  → ${event.record.tool}(${preview(event.record.args)})${event.record.progress ? ` ${progressText(event.record.progress)}` : ''}`
        : `  ${event.record.ok ? '✓' : '✗'} ${event.record.tool} ${event.record.ms} ms${event.record.error ? `: ${event.record.error}` : ''}`;
    case 'outcome':
      return event.outcome === 'final_answer' || event.outcome === 'further_processing'
        ? `step ${event.step}: ${event.outcome.replace('_', ' ')}`
        : `step ${event.step}: ${event.outcome.replace('_', ' ')}: ${event.detail.split('\n')[0]}`;
    case 'result':
      // The command prints the result itself.
      return null;
    default:
      return null;
  }
}

/** Returns the onEvent handler for runAgent, writing to stderr as the output mode allows. */
export function createProgress(out: Output): { onEvent: (event: AgentEvent) => void; done: () => void } {
  const status = createStatusLine(out);
  return {
    onEvent(event) {
      const text = describeEvent(event);
      if (text === null) return;
      const transient = event.type === 'perceiving' || event.type === 'running' || (event.type === 'tool_call' && event.phase === 'start');
      if (transient) status.transient(text);
      else status.line(out.tty ? out.dim(text) : text);
    },
    done: status.clear,
  };
}
