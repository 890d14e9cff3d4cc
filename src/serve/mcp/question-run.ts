// One `cortex mcp` question that outlives a single tools/call: it stops at each request for input, the call answers
// input_required, and the client's retry (carrying the answers) picks the same run up again.
import { randomUUID } from 'node:crypto';
import type { AgentEvent } from '../../agent/types.js';
import { MAX_ELICITATION_WAIT_MS, type ElicitationAnswer, type ElicitationRequest } from '../../mcp/elicitation.js';

/** What a call hands back next: a question for the client (keyed), or the run's end. */
export type RunStep<R> = { kind: 'ask'; key: string; request: ElicitationRequest } | { kind: 'done'; result: R } | { kind: 'failed'; error: unknown };

/** What the run's body gets: how to ask the client, where its events go, and its cancel signal. */
export interface RunHooks {
  ask: (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;
  onEvent: (event: AgentEvent) => void;
  signal: AbortSignal;
}

/**
 * A question running in the background. `next()` waits for its next step; `answer()` hands over the client's answers
 * to questions asked. A question nobody answers within MAX_ELICITATION_WAIT_MS cancels the run (the client went away).
 */
export class QuestionRun<R> {
  readonly id = randomUUID();
  private readonly controller = new AbortController();
  private readonly steps: RunStep<R>[] = [];
  private wake: (() => void) | null = null;
  private readonly waiting = new Map<string, { resolve: (answer: ElicitationAnswer) => void; timer: NodeJS.Timeout }>();
  private asked = 0;
  /** The current call's progress sink (null between calls, whose events are dropped); one call at a time. */
  sink: ((event: AgentEvent) => void) | null = null;
  /** Progress notifications sent so far, over every call of the run (progress must only grow). */
  progressCount = 0;
  /** Resolves when the run has ended, however it ended. */
  readonly ended: Promise<void>;

  constructor(body: (hooks: RunHooks) => Promise<R>) {
    const hooks: RunHooks = { ask: (request, signal) => this.ask(request, signal), onEvent: (event) => this.sink?.(event), signal: this.controller.signal };
    // Started on the next tick, so the call that made the run can attach its progress sink first.
    this.ended = Promise.resolve().then(() => body(hooks)).then(
      (result) => this.push({ kind: 'done', result }),
      (error: unknown) => this.push({ kind: 'failed', error }),
    );
  }

  /** The next step, or null when `signal` fired first (the run is then cancelled). */
  async next(signal: AbortSignal): Promise<RunStep<R> | null> {
    const onAbort = () => this.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        if (signal.aborted) return null;
        const step = this.steps.shift();
        if (step) return step;
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Hands the client's answers to the questions they name; a question asked but not answered counts as cancelled. */
  answer(answers: ReadonlyMap<string, ElicitationAnswer>, askedKeys: readonly string[]): void {
    for (const key of askedKeys) this.settle(key, answers.get(key) ?? { action: 'cancel' });
  }

  /** Keys of the questions still waiting for an answer. */
  get openQuestions(): string[] {
    return [...this.waiting.keys()];
  }

  cancel(): void {
    this.controller.abort();
    this.wake?.();
  }

  private push(step: RunStep<R>): void {
    this.steps.push(step);
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private settle(key: string, answer: ElicitationAnswer): void {
    const waiter = this.waiting.get(key);
    if (!waiter) return;
    this.waiting.delete(key);
    clearTimeout(waiter.timer);
    waiter.resolve(answer);
  }

  private ask(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> {
    const key = `q${++this.asked}`;
    return new Promise((resolve) => {
      // Nobody came back with an answer: the client is gone, so the whole question stops.
      const timer = setTimeout(() => {
        this.settle(key, { action: 'cancel', reason: 'no answer came back from the MCP client' });
        this.cancel();
      }, MAX_ELICITATION_WAIT_MS);
      this.waiting.set(key, { resolve, timer });
      signal.addEventListener('abort', () => this.settle(key, { action: 'cancel' }), { once: true });
      this.push({ kind: 'ask', key, request });
    });
  }
}
