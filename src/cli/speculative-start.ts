// While perception waits on a slow model, our own servers start in the background, so the ones it picks are ready
// when it answers instead of starting after it. A fast model answers first and nothing extra starts.
import type { AgentEvent } from '../agent/types.js';

/** Perception still unanswered after this long starts our own servers before it has chosen. */
export const SPECULATIVE_START_AFTER_MS = 300;

export interface SpeculativeStart {
  /** Pass every agent event through: perception's llm_start arms the timer, its llm_end disarms it. */
  onEvent: (event: AgentEvent) => void;
  /** Disarms the timer (the question ended). */
  stop: () => void;
}

/** Calls `start` once, when a perception request has been waiting `afterMs`; events then go on to `forward`. */
export function speculativeStart(start: () => void, forward?: (event: AgentEvent) => void, afterMs = SPECULATIVE_START_AFTER_MS): SpeculativeStart {
  let timer: NodeJS.Timeout | undefined;
  let fired = false;
  const stop = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  return {
    onEvent: (event) => {
      if (event.type === 'llm_start' && event.stage === 'perception' && !fired && !timer) {
        timer = setTimeout(() => {
          timer = undefined;
          fired = true;
          start();
        }, afterMs);
        timer.unref();
      } else if (event.type === 'llm_end' && event.stage === 'perception') {
        stop();
      }
      forward?.(event);
    },
    stop,
  };
}
