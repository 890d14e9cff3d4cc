// Token and cost budgets: counts what each question and session spends on the model and stops a request that would pass a limit.
import { QuestionStoppedError } from '../errors.js';
import { estimatePromptTokens } from '../llm/token-estimate.js';
import type { GenerateRequest, LlmClient } from '../llm/types.js';
import { withGenerate } from '../llm/with-generate.js';
import { priceOf, type BudgetSettings, type Prices } from '../config/budget-settings.js';
import { spentInTrace, type Spent } from './session-spend.js';

export type { Spent };

/** The `spend` of a result (`--json`, the HTTP API, `cortex mcp`): the question's and its session's, and the limits. */
export interface SpendReport {
  tokens: number;
  cost_usd: number | null;
  session_tokens: number;
  session_cost_usd: number | null;
  limits: { tokens_per_question: number | null; tokens_per_session: number | null; usd_per_question: number | null; usd_per_session: number | null };
}

/** Sessions whose spend is kept at once (a long `cortex serve`): the oldest is forgotten past this. */
const MAX_SESSIONS_TRACKED = 1_000;

/** The budget limits in force: the profile's `budget`, with `--token-budget` over its tokens_per_question. */
export interface BudgetLimits {
  tokensPerQuestion: number | null;
  tokensPerSession: number | null;
  usdPerQuestion: number | null;
  usdPerSession: number | null;
}

export function budgetLimits(settings: BudgetSettings, tokenBudget?: number): BudgetLimits {
  return {
    tokensPerQuestion: tokenBudget ?? settings.tokens_per_question ?? null,
    tokensPerSession: settings.tokens_per_session ?? null,
    usdPerQuestion: settings.usd_per_question ?? null,
    usdPerSession: settings.usd_per_session ?? null,
  };
}

/** One per Runtime: the spend of every session it answered in, and the limits. */
export class BudgetKeeper {
  private readonly sessions = new Map<string, Spent>();

  constructor(private readonly limits: BudgetLimits, private readonly prices: Prices) {}

  /** A fresh count for one question. */
  newQuestion(): Spent {
    return { tokens: 0, usd: 0 };
  }

  /**
   * Starts the count of `sessionId` from what its trace says it spent before (a session continued with `--session` or
   * `-c`), once per process; prices are looked up as for `llm` (its provider for its own model).
   */
  async loadSession(sessionId: string, tracePath: string, llm: Pick<LlmClient, 'provider' | 'model'>): Promise<void> {
    if (this.sessions.has(sessionId)) return;
    const earlier = await spentInTrace(tracePath, (model) => priceOf(this.prices, model === llm.model ? llm.provider : '', model));
    const spent = this.session(sessionId);
    spent.tokens += earlier.tokens;
    spent.usd = spent.usd === null || earlier.usd === null ? null : spent.usd + earlier.usd;
  }

  /** What `sessionId` has spent so far in this process. */
  session(sessionId: string): Spent {
    let spent = this.sessions.get(sessionId);
    if (!spent) {
      if (this.sessions.size >= MAX_SESSIONS_TRACKED) this.sessions.delete(this.sessions.keys().next().value!);
      spent = { tokens: 0, usd: 0 };
      this.sessions.set(sessionId, spent);
    }
    return spent;
  }

  /**
   * `llm` that checks each request against the limits before sending it (its prompt's estimated tokens and, where the
   * price is known, their cost) and counts what it spent after. @throws QuestionStoppedError from generate when the
   * request would pass a limit, saying which and what was spent.
   */
  wrap(llm: LlmClient, question: Spent, sessionId: string): LlmClient {
    const session = this.session(sessionId);
    return withGenerate(llm, async (request: GenerateRequest) => {
      const price = priceOf(this.prices, llm.provider, llm.model);
      const promptTokens = estimatePromptTokens(`${request.system ?? ''}${request.prompt}`);
      const promptUsd = price ? (promptTokens * price.input) / 1e6 : null;
      this.check(question, session, promptTokens, promptUsd);
      const result = await llm.generate(request);
      const tokens = result.usage.promptTokens + result.usage.completionTokens;
      const usd = price ? (result.usage.promptTokens * price.input + result.usage.completionTokens * price.output) / 1e6 : null;
      for (const spent of [question, session]) {
        spent.tokens += tokens;
        spent.usd = spent.usd === null || usd === null ? null : spent.usd + usd;
      }
      return result;
    });
  }

  private check(question: Spent, session: Spent, tokens: number, usd: number | null): void {
    const { tokensPerQuestion, tokensPerSession, usdPerQuestion, usdPerSession } = this.limits;
    const over = (limit: number | null, spent: number, more: number) => limit !== null && spent + more > limit;
    const said = `${describeSpent(question)} on this question`;
    if (over(tokensPerQuestion, question.tokens, tokens)) throw stop(`its token budget of ${fmt(tokensPerQuestion!)} per question`, said);
    if (over(tokensPerSession, session.tokens, tokens)) throw stop(`the session's token budget of ${fmt(tokensPerSession!)}`, `${said}, ${describeSpent(session)} in this session`);
    if (usd !== null && question.usd !== null && over(usdPerQuestion, question.usd, usd)) throw stop(`its cost budget of ${dollars(usdPerQuestion!)} per question`, said);
    if (usd !== null && session.usd !== null && over(usdPerSession, session.usd, usd)) throw stop(`the session's cost budget of ${dollars(usdPerSession!)}`, `${said}, ${describeSpent(session)} in this session`);
  }

  /** The `spend` of a result. */
  report(question: Spent, sessionId: string): SpendReport {
    const session = this.session(sessionId);
    const round = (usd: number | null) => (usd === null ? null : Math.round(usd * 1e6) / 1e6);
    const { tokensPerQuestion, tokensPerSession, usdPerQuestion, usdPerSession } = this.limits;
    return {
      tokens: question.tokens,
      cost_usd: round(question.usd),
      session_tokens: session.tokens,
      session_cost_usd: round(session.usd),
      limits: { tokens_per_question: tokensPerQuestion, tokens_per_session: tokensPerSession, usd_per_question: usdPerQuestion, usd_per_session: usdPerSession },
    };
  }
}

function stop(limit: string, spent: string): QuestionStoppedError {
  return new QuestionStoppedError(`Stopped: the next request to the model would pass ${limit}. Spent ${spent}.`);
}

/** "1,234 tokens (about $0.0012)", or without the cost when a price was unknown. */
export function describeSpent(spent: Spent): string {
  return `${fmt(spent.tokens)} tokens${spent.usd === null ? '' : ` (about ${dollars(spent.usd)})`}`;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

function dollars(usd: number): string {
  return `$${usd < 0.01 && usd > 0 ? usd.toPrecision(2) : usd.toFixed(2)}`;
}
