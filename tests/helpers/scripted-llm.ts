// An in-process LLM for tests: replays scripted turns, records every request, and refuses anything unscripted.
import { LlmRequestError } from '../../src/errors.js';
import type { EmbedResult, GenerateRequest, GenerateResult, LlmClient, TokenUsage } from '../../src/llm/types.js';

/**
 * One scripted answer: fixed text, text the provider says stopped at the output limit, or a function of the request
 * (it may throw to simulate a failure).
 */
export type ScriptedTurn = string | { text: string; hitOutputLimit: true } | ((request: GenerateRequest, index: number) => string | Promise<string>);

export interface ScriptedLlmOptions {
  /** Answers in the order the requests will arrive. */
  turns?: ScriptedTurn[];
  /** Reported model name. Default 'scripted'. */
  model?: string;
  /**
   * Token usage reported for each answer: fixed figures or a function of the request and answer.
   * Default: a deterministic estimate of one token per four characters.
   */
  usage?: TokenUsage | ((request: GenerateRequest, text: string) => TokenUsage);
  /** Embeds texts; without it embed() throws, since nothing was scripted. */
  embed?: (texts: string[]) => number[][];
}

/** Characters per token in the default usage estimate. */
const CHARS_PER_TOKEN_ESTIMATE = 4;

function estimateUsage(request: GenerateRequest, text: string): TokenUsage {
  const promptChars = request.prompt.length + (request.system?.length ?? 0);
  return {
    promptTokens: Math.ceil(promptChars / CHARS_PER_TOKEN_ESTIMATE),
    completionTokens: Math.ceil(text.length / CHARS_PER_TOKEN_ESTIMATE),
  };
}

/**
 * A scripted LlmClient. Each generate() consumes the next turn; a request with no turn left throws
 * LlmRequestError naming the request, so a test fails loudly when the code under test asks more
 * than expected. `requests` holds every request received (answered or not).
 */
export class ScriptedLlm implements LlmClient {
  readonly provider = 'scripted';
  readonly model: string;
  /** Every generate() request, in arrival order. */
  readonly requests: GenerateRequest[] = [];
  /** Every embed() call's texts, in arrival order. */
  readonly embedRequests: string[][] = [];
  private readonly turns: ScriptedTurn[];
  private readonly usage: NonNullable<ScriptedLlmOptions['usage']>;
  private readonly embedder: ScriptedLlmOptions['embed'];

  constructor({ turns = [], model = 'scripted', usage = estimateUsage, embed }: ScriptedLlmOptions = {}) {
    this.turns = [...turns];
    this.model = model;
    this.usage = usage;
    this.embedder = embed;
  }

  /** Appends turns to the script (e.g. after inspecting earlier requests). */
  push(...turns: ScriptedTurn[]): void {
    this.turns.push(...turns);
  }

  /** How many scripted turns have not been consumed yet. */
  get remaining(): number {
    return this.turns.length;
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const index = this.requests.length;
    this.requests.push(request);
    if (request.signal?.aborted) {
      throw new LlmRequestError(this.provider, `request #${index + 1} aborted`, undefined, { cause: request.signal.reason });
    }
    const turn = this.turns.shift();
    if (turn === undefined) {
      const start = request.prompt.slice(0, 120).replace(/\s+/g, ' ');
      throw new LlmRequestError(this.provider, `no scripted turn left for request #${index + 1} ("${start}…")`);
    }
    const started = performance.now();
    const text = typeof turn === 'string' ? turn : typeof turn === 'object' ? turn.text : await turn(request, index);
    const usage = typeof this.usage === 'function' ? this.usage(request, text) : { ...this.usage };
    const cut = typeof turn === 'object' ? { hitOutputLimit: true } : {};
    return { text, model: this.model, usage, latencyMs: performance.now() - started, ...cut };
  }

  async embed(texts: string[]): Promise<EmbedResult> {
    this.embedRequests.push(texts);
    if (!this.embedder) throw new LlmRequestError(this.provider, 'embed() was not scripted');
    const started = performance.now();
    const vectors = this.embedder(texts);
    return { vectors, model: this.model, latencyMs: performance.now() - started };
  }
}
