// Requests for input during a `cortex mcp` question (a tool server's, or Cortex-R's own approval question), sent on to
// the MCP client as elicitation/create, when the client said it can answer them.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitResultSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { MAX_ELICITATION_WAIT_MS, type Elicit } from '../mcp/elicitation.js';

/** How a tool call's handler sends a request to the client, tied to that call (RequestHandlerExtra.sendRequest). */
type SendRequest = (request: ElicitRequest, schema: typeof ElicitResultSchema, options: { signal: AbortSignal; timeout: number }) => Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }>;

/** An Elicit asking the MCP client, or undefined when it declared no elicitation capability (then nobody is asked). */
export function clientElicit(server: Server, sendRequest: SendRequest): Elicit | undefined {
  const capability = server.getClientCapabilities()?.elicitation;
  if (!capability) return undefined;
  return async (request, { signal }) => {
    if (request.mode === 'url' && !capability.url) return { action: 'decline', reason: 'The MCP client asking this question cannot open links for its user.' };
    // The client's user must know who asks: a tool server, or Cortex-R itself before a call.
    const asker = request.mode === 'form' && request.approval ? 'Cortex-R asks before running a tool' : request.mode === 'form' && request.question ? 'Cortex-R asks' : `The tool server "${request.server}" asks`;
    const message = `${asker}: ${request.message}`;
    const params: ElicitRequest['params'] =
      request.mode === 'url'
        ? { mode: 'url', message, url: request.url, elicitationId: request.elicitationId }
        : { message, requestedSchema: { type: 'object', properties: request.fields as never, required: request.required } };
    const result = await sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, { signal, timeout: MAX_ELICITATION_WAIT_MS });
    if (result.action !== 'accept') return { action: result.action };
    return { action: 'accept', ...(result.content ? { content: result.content as Record<string, string | number | boolean | string[]> } : {}) };
  };
}
