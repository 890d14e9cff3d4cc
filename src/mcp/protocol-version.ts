// Which MCP protocol versions we speak, and reading a server's "I speak none of yours" out of whatever a transport threw.
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { McpError, errorMessage } from '../errors.js';
import { MODERN_PROTOCOL_VERSIONS } from './modern-session.js';

/** The JSON-RPC error code of UnsupportedProtocolVersion (protocol 2026-07-28; data: `{supported, requested}`). */
export const UNSUPPORTED_PROTOCOL_VERSION_CODE = -32022;
/** Invalid params: what the 2025 revisions answer an initialize naming a version they do not speak, with the same data. */
const INVALID_PARAMS_CODE = -32602;
/** Versions named from a server's answer, so a server listing thousands cannot flood the message. */
const MAX_VERSIONS_NAMED = 8;
/** Characters of one version named from a server's answer. */
const MAX_VERSION_CHARS = 40;

/**
 * The protocol versions the client speaks, newest first: 2026-07-28 through SDK v2 (modern-session.ts), then SDK
 * v1's list (the oldest two are 2024 drafts).
 */
export const SPOKEN_PROTOCOL_VERSIONS: readonly string[] = [...MODERN_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];
/** Versions named in a refusal; older ones are summed up as "and older". */
const SPOKEN_VERSIONS_NAMED = 4;

/**
 * Thrown when a server refuses the 2025 versions (ServerConnection then tries 2026-07-28 if it offered that) or
 * speaks no version we do: not worth a retry, nor a fall-back to another transport.
 */
export class UnsupportedProtocolError extends McpError {
  constructor(
    server: string,
    /** The versions the server said it speaks (may be empty when it named none). */
    readonly offered: string[],
    options?: { cause?: unknown },
  ) {
    const theirs = offered.length ? `only MCP protocol ${offered.join(', ')}` : 'no MCP protocol version it would name';
    super(server, `speaks ${theirs}, and Cortex-R speaks ${SPOKEN_PROTOCOL_VERSIONS.slice(0, SPOKEN_VERSIONS_NAMED).join(', ')} (and older)`, options);
  }
}

/**
 * The versions a server offered when it refused ours, or undefined when `err` is something else. Recognises the
 * 2026-07-28 UnsupportedProtocolVersion error and the 2025 revisions' -32602 with `data.supported`, whether it came
 * as a JSON-RPC error (stdio) or as the body of an HTTP 400 (Streamable HTTP), and the SDK's own refusal of the
 * version a server answered initialize with.
 */
export function offeredVersions(err: unknown): string[] | undefined {
  const direct = err as { code?: unknown; data?: unknown } | undefined;
  if (isRefusal(direct)) return versionsIn(direct!.data);
  const message = errorMessage(err);
  const answered = /protocol version is not supported: (\S+)/i.exec(message);
  if (answered) return versionsIn({ supported: [answered[1]] });
  // Streamable HTTP: the SDK puts the response body in the message ("Error POSTing to endpoint: {…}").
  const body = message.indexOf('{');
  if (body < 0 || !/-32022|-32602/.test(message)) return undefined;
  try {
    const parsed = JSON.parse(message.slice(body)) as { error?: { code?: unknown; data?: unknown } };
    return isRefusal(parsed.error) ? versionsIn(parsed.error!.data) : undefined;
  } catch {
    return undefined;
  }
}

/** -32022, or -32602 naming the versions it supports (any other invalid-params error is not about versions). */
function isRefusal(error: { code?: unknown; data?: unknown } | undefined): boolean {
  if (error?.code === UNSUPPORTED_PROTOCOL_VERSION_CODE) return true;
  return error?.code === INVALID_PARAMS_CODE && Array.isArray((error.data as { supported?: unknown } | undefined)?.supported);
}

function versionsIn(data: unknown): string[] {
  const supported = (data as { supported?: unknown } | undefined)?.supported;
  if (!Array.isArray(supported)) return [];
  return supported.filter((v): v is string => typeof v === 'string').slice(0, MAX_VERSIONS_NAMED).map((v) => v.slice(0, MAX_VERSION_CHARS));
}
