// Elicitation (MCP `elicitation/create`): a server asks the person for input, in a form or by sending them to a URL.
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { AskApproval } from './types.js';

/** A form field as the spec allows it: a flat property of string, number, integer or boolean, or an enum. */
export interface FormField {
  type?: 'string' | 'number' | 'integer' | 'boolean' | 'array';
  title?: string;
  description?: string;
  enum?: string[];
  oneOf?: Array<{ const: string; title?: string }>;
  default?: unknown;
  minimum?: number;
  maximum?: number;
}

/** What a server asked, with the server named (the person must know who is asking). */
export type ElicitationRequest =
  | { server: string; mode: 'form'; message: string; fields: Record<string, FormField>; required: string[]; approval?: true; /** Cortex-R asks for a plan (`ask_user`). */ question?: true }
  | { server: string; mode: 'url'; message: string; url: string; elicitationId: string };

/**
 * The person's answer: accept (with the form's values), decline, or cancel (dismissed without choosing). `reason`
 * tells the server why when nobody could be asked.
 */
export type ElicitationAnswer = { action: 'accept'; content?: Record<string, string | number | boolean | string[]> } | { action: 'decline' | 'cancel'; reason?: string };

/**
 * Asks the person. Passed in by whoever has one to ask (the REPL and `ask` on a terminal: terminalElicit(); the
 * page); absent where nobody can answer, and every request is then declined with the reason.
 */
export type Elicit = (request: ElicitationRequest, options: { signal: AbortSignal }) => Promise<ElicitationAnswer>;

/**
 * An AskApproval through `elicit`: Cortex-R itself asks (`approval: true`, no fields); accept is yes, decline no, and
 * cancel (dismissed, stopped, timed out) no answer. A person who never answers is not waited for past
 * MAX_ELICITATION_WAIT_MS.
 */
export function approvalByElicitation(elicit: Elicit): AskApproval {
  return async (question, signal) => {
    const request: ElicitationRequest = { server: 'Cortex-R', mode: 'form', message: question, fields: {}, required: [], approval: true };
    const answer = await askWithin(elicit, request, signal, MAX_ELICITATION_WAIT_MS).catch(() => null);
    if (answer === null || answer instanceof ElicitationTimedOut) return null;
    return answer.action === 'accept' ? true : answer.action === 'decline' ? false : null;
  };
}

/** Told to a server asking where nobody can answer (`cortex mcp`, `cortex serve` without a page, no terminal). */
export const NOBODY_TO_ASK = 'Cortex-R is running without a person to answer questions (no terminal, or as a server), so it declines every request for input.';

/**
 * Longest a person may take to answer one request; then it is cancelled (the server is told why) and the clocks it
 * stopped run again. The same as the sandbox's MAX_APPROVAL_PAUSE_MS, so a plan's time limit stands still as long.
 */
export const MAX_ELICITATION_WAIT_MS = 5 * 60_000;

/** The abort reason of a request nobody answered within its time; its message is for the person and the server. */
export class ElicitationTimedOut extends Error {
  constructor(server: string, waitMs: number) {
    super(`No answer came within ${spoken(waitMs)}, so the question from "${server}" was cancelled.`);
    this.name = 'ElicitationTimedOut';
  }
}

/** `ms` as a person says it: "5 minutes", "1 minute", "30 seconds". */
function spoken(ms: number): string {
  const [n, unit] = ms >= 60_000 ? [Math.round(ms / 60_000), 'minute'] : [Math.max(1, Math.round(ms / 1_000)), 'second'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** The request as our handlers see it. */
function toElicitationRequest(server: string, params: ElicitRequest['params']): ElicitationRequest {
  if (params.mode === 'url') return { server, mode: 'url', message: params.message, url: params.url, elicitationId: params.elicitationId };
  const schema = params.requestedSchema as { properties?: Record<string, FormField>; required?: string[] };
  return { server, mode: 'form', message: params.message, fields: schema.properties ?? {}, required: schema.required ?? [] };
}

/**
 * Answers one elicitation/create: the person's answer when someone can be asked, else a decline saying why. A
 * person who has not answered after `maxWaitMs` is no longer waited for: the request is cancelled, saying why.
 */
export async function answerElicitation(
  server: string,
  params: ElicitRequest['params'],
  elicit: Elicit | undefined,
  signal: AbortSignal,
  maxWaitMs = MAX_ELICITATION_WAIT_MS,
): Promise<ElicitResult> {
  if (!elicit) return { action: 'decline', _meta: { 'cortex-r/reason': NOBODY_TO_ASK } };
  const answer = await askWithin(elicit, toElicitationRequest(server, params), signal, maxWaitMs);
  if (answer instanceof ElicitationTimedOut) return { action: 'cancel', _meta: { 'cortex-r/reason': answer.message } };
  if (answer.action === 'accept') return { action: 'accept', ...(answer.content ? { content: answer.content } : {}) };
  return { action: answer.action, ...('reason' in answer && answer.reason ? { _meta: { 'cortex-r/reason': answer.reason } } : {}) };
}

/**
 * Asks `elicit`, for at most `maxWaitMs` and no longer than `signal` lasts (an Elicit that ignores its signal cannot
 * hold us): resolves with the answer, or with ElicitationTimedOut once the time ran out; rejects when `signal` aborts.
 */
async function askWithin(elicit: Elicit, request: ElicitationRequest, signal: AbortSignal, maxWaitMs: number): Promise<ElicitationAnswer | ElicitationTimedOut> {
  const waiting = new AbortController();
  const onAbort = () => waiting.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => waiting.abort(new ElicitationTimedOut(request.server, maxWaitMs)), maxWaitMs);
  try {
    const answer = await Promise.race([elicit(request, { signal: waiting.signal }), abortedBy(waiting.signal)]).catch((err: unknown) => {
      if (waiting.signal.reason instanceof ElicitationTimedOut) return waiting.signal.reason;
      throw err;
    });
    const timedOut: unknown = waiting.signal.reason;
    return timedOut instanceof ElicitationTimedOut ? timedOut : answer;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

/** Rejects with the signal's reason once it aborts (an Elicit that ignores its signal can't hold the server). */
function abortedBy(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
