// Requests for input during a `cortex mcp` question (a tool server's, or Cortex-R's own approval question), turned
// into the input requests of an input_required result, and the client's answers turned back.
import { inputRequired, type ClientCapabilities, type InputRequest } from '@modelcontextprotocol/server';
import type { ElicitationAnswer, ElicitationRequest } from '../mcp/elicitation.js';

/** What the client said it can answer: nothing, forms, or forms and links. */
export type ClientAsking = 'none' | 'form' | 'form_and_url';

/** How far a client can be asked, from the capabilities it declared (per request on 2026, at initialize before). */
export function clientAsking(capabilities: ClientCapabilities | undefined): ClientAsking {
  const elicitation = capabilities?.elicitation;
  if (!elicitation) return 'none';
  return elicitation.url ? 'form_and_url' : 'form';
}

/** A link the client cannot open is declined without asking; the words say why. */
export const CANNOT_OPEN_LINKS = 'The MCP client asking this question cannot open links for its user.';

/** The embedded elicitation/create for one request; the message names who asks (a tool server, or Cortex-R). */
export function inputRequestFor(request: ElicitationRequest): InputRequest {
  // The client's user must know who asks: a tool server, or Cortex-R itself before a call.
  const asker =
    request.mode === 'form' && request.approval ? 'Cortex-R asks before running a tool' : request.mode === 'form' && request.question ? 'Cortex-R asks' : `The tool server "${request.server}" asks`;
  const message = `${asker}: ${request.message}`;
  if (request.mode === 'url') return inputRequired.elicitUrl({ message, url: request.url });
  return inputRequired.elicit({ message, requestedSchema: { type: 'object', properties: request.fields as never, required: request.required } });
}

/** The client's answer to one input request; anything but an elicitation result counts as cancelled. */
export function answerFrom(response: unknown): ElicitationAnswer {
  if (typeof response !== 'object' || response === null) return { action: 'cancel' };
  const { action, content } = response as { action?: unknown; content?: unknown };
  if (action === 'decline' || action === 'cancel') return { action };
  if (action !== 'accept') return { action: 'cancel' };
  return typeof content === 'object' && content !== null ? { action: 'accept', content: content as Record<string, string | number | boolean | string[]> } : { action: 'accept' };
}
