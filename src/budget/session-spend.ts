// What a saved session already spent on the model, read from its trace, so a session budget holds across `cortex ask -c` runs.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Price } from '../config/budget-settings.js';

/** What was spent: tokens (prompt + completion) and US dollars (null once a request's price was unknown). */
export interface Spent {
  tokens: number;
  usd: number | null;
}

/** Trace lines read at most: a session of thousands of questions still stops reading at a bound. */
const MAX_TRACE_LINES = 1_000_000;

/**
 * The tokens (and US dollars, null once a model's price is unknown) of every LLM call in the trace at `tracePath`;
 * zero when there is none yet. Never throws: an unreadable trace counts as nothing spent.
 */
export async function spentInTrace(tracePath: string, priceOf: (model: string) => Price | null): Promise<Spent> {
  const spent: Spent = { tokens: 0, usd: 0 };
  const stream = createReadStream(tracePath, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let read = 0;
  try {
    for await (const line of lines) {
      if (++read > MAX_TRACE_LINES) break;
      if (!line.includes('"llm_call"')) continue;
      let event: { type?: unknown; model?: unknown; prompt_tokens?: unknown; completion_tokens?: unknown };
      try {
        event = JSON.parse(line) as typeof event;
      } catch {
        continue;
      }
      if (event.type !== 'llm_call') continue;
      const input = typeof event.prompt_tokens === 'number' ? event.prompt_tokens : 0;
      const output = typeof event.completion_tokens === 'number' ? event.completion_tokens : 0;
      spent.tokens += input + output;
      const price = typeof event.model === 'string' ? priceOf(event.model) : null;
      spent.usd = spent.usd === null || price === null ? null : spent.usd + (input * price.input + output * price.output) / 1e6;
    }
  } catch {
    // No trace yet (a new session), or one that cannot be read: nothing known to be spent.
  } finally {
    lines.close();
    stream.destroy();
  }
  return spent;
}
