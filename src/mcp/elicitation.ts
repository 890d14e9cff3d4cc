// Elicitation (MCP `elicitation/create`): a server asks the person for input, in a form or by sending them to a URL.
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';

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
  | { server: string; mode: 'form'; message: string; fields: Record<string, FormField>; required: string[] }
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

/** Told to a server asking where nobody can answer (`cortex mcp`, `cortex serve` without a page, no terminal). */
export const NOBODY_TO_ASK = 'Cortex-R is running without a person to answer questions (no terminal, or as a server), so it declines every request for input.';

/** The request as our handlers see it. */
export function toElicitationRequest(server: string, params: ElicitRequest['params']): ElicitationRequest {
  if (params.mode === 'url') return { server, mode: 'url', message: params.message, url: params.url, elicitationId: params.elicitationId };
  const schema = params.requestedSchema as { properties?: Record<string, FormField>; required?: string[] };
  return { server, mode: 'form', message: params.message, fields: schema.properties ?? {}, required: schema.required ?? [] };
}

/** Answers one elicitation/create: the person's answer when someone can be asked, else a decline saying why. */
export async function answerElicitation(server: string, params: ElicitRequest['params'], elicit: Elicit | undefined, signal: AbortSignal): Promise<ElicitResult> {
  if (!elicit) return { action: 'decline', _meta: { 'cortex-r/reason': NOBODY_TO_ASK } };
  const answer = await elicit(toElicitationRequest(server, params), { signal });
  if (answer.action === 'accept') return { action: 'accept', ...(answer.content ? { content: answer.content } : {}) };
  return { action: answer.action, ...(answer.reason ? { _meta: { 'cortex-r/reason': answer.reason } } : {}) };
}
