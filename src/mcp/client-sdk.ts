// The MCP SDK's client classes, loaded on the first server start rather than with the CLI, and only what that start
// needs: a stdio server's spawn waits for the client and its stdio transport, not for the HTTP transports nor ajv
// (the output-schema checks load it while the server starts; see output-validators.ts).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

export interface ClientSdk {
  Client: typeof Client;
  StdioClientTransport: typeof StdioClientTransport;
}

export interface HttpClientSdk {
  SSEClientTransport: typeof SSEClientTransport;
  StreamableHTTPClientTransport: typeof StreamableHTTPClientTransport;
}

let loading: Promise<ClientSdk> | undefined;
let loadingHttp: Promise<HttpClientSdk> | undefined;

/** The client and its stdio transport, imported once. */
export function clientSdk(): Promise<ClientSdk> {
  loading ??= Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/client/stdio.js')]).then(
    ([index, stdio]) => ({ Client: index.Client, StdioClientTransport: stdio.StdioClientTransport }),
  );
  return loading;
}

/** The Streamable HTTP and SSE transports, imported once, for the first remote server. */
export function httpClientSdk(): Promise<HttpClientSdk> {
  loadingHttp ??= Promise.all([import('@modelcontextprotocol/sdk/client/sse.js'), import('@modelcontextprotocol/sdk/client/streamableHttp.js')]).then(
    ([sse, http]) => ({ SSEClientTransport: sse.SSEClientTransport, StreamableHTTPClientTransport: http.StreamableHTTPClientTransport }),
  );
  return loadingHttp;
}

/** A new instance of the SDK's own JSON-schema validator (ajv), whose code is imported on the first call. */
export async function sdkSchemaValidator(): Promise<jsonSchemaValidator> {
  const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/sdk/validation/ajv');
  return new AjvJsonSchemaValidator();
}
