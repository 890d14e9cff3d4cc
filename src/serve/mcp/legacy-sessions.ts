// 2025-era Streamable HTTP for `cortex mcp --http`: one session (Mcp-Session-Id) per client, so the server can ask
// that client questions (elicitation/create) mid-call and the client can end the session with DELETE.
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport, type McpServerFactory } from '@modelcontextprotocol/server';

/** Sessions kept at once; past it the one used least recently is closed (a client that vanished never says so). */
export const MAX_MCP_SESSIONS = 64;

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  close(): Promise<void>;
}

/** A fetch-shaped handler for 2025-era requests, and how to close every session. */
export interface LegacySessions {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), { status, headers: { 'content-type': 'application/json' } });
}

export function legacySessions(factory: McpServerFactory, onerror: (error: Error) => void): LegacySessions {
  const sessions = new Map<string, Session>();
  return {
    async fetch(request) {
      const id = request.headers.get('mcp-session-id');
      if (id !== null) {
        const session = sessions.get(id);
        if (!session) return jsonRpcError(404, -32001, 'Session not found: it ended or was closed; initialize a new one');
        // Most recently used last: the first in the map is the one to close when full.
        sessions.delete(id);
        sessions.set(id, session);
        return session.transport.handleRequest(request);
      }
      // No session yet: only an initialize opens one (the transport answers anything else with an error).
      if (sessions.size >= MAX_MCP_SESSIONS) {
        const [oldest, session] = sessions.entries().next().value as [string, Session];
        sessions.delete(oldest);
        await session.close().catch(() => undefined);
      }
      const server = await factory({ era: 'legacy', requestInfo: request });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, close: () => server.close() }),
        onsessionclosed: (sessionId) => void sessions.delete(sessionId),
      });
      transport.onerror = onerror;
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      if (transport.sessionId === undefined) await server.close().catch(() => undefined);
      return response;
    },
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.close().catch(() => undefined)));
    },
  };
}
