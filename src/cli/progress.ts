// The live display of a run on stderr: on a terminal, a spinner line with what is happening, the model's elapsed
// time and tokens so far, and lines that stay for what happened; elsewhere, plain lines. `-v` adds the plan as the
// model writes it, each request's figures and the code that runs.
import type { AgentEvent } from '../agent/types.js';
import { describeEvent, stageLabel } from '../runtime/describe-event.js';
import type { Output } from './output.js';
import { createStatusLine } from './status-line.js';

/** How often the spinner line is redrawn on a terminal: often enough that the seconds visibly count. */
export const SPINNER_INTERVAL_MS = 120;
const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

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
