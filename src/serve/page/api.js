// Talking to `cortex serve`: requests with the API token, failures as plain-word headings, server-sent events.

/** A request that did not give what the page needs: `heading` says what happened in plain words, `message` the details. */
export class Failure extends Error {
  constructor(heading, message = '', status = 0) {
    super(message || heading);
    this.heading = heading;
    this.detail = message;
    this.status = status;
  }
}

export const NOT_REACHABLE = 'Cortex-R server not reachable — is `cortex serve` running?';

let token = sessionStorage.getItem('cortex-token') || '';

/** Asks the person for the API token (after a 401); true when one was given. */
export function askForToken() {
  const given = window.prompt('This server needs its API token (CORTEX_API_TOKEN):');
  if (!given) return false;
  token = given.trim();
  sessionStorage.setItem('cortex-token', token);
  return true;
}

/** The Authorization header value, or '' when no token was given. */
export function authorization() {
  return token ? `Bearer ${token}` : '';
}

/** fetch() with the token; a 401 asks for it once. @throws Failure when the server cannot be reached. */
export async function api(path, init = {}) {
  const headers = new Headers(init.headers || {});
  if (token) headers.set('authorization', `Bearer ${token}`);
  let response;
  try {
    response = await fetch(path, { ...init, headers });
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    throw new Failure(NOT_REACHABLE, 'The page could not connect to the server that served it.');
  }
  if (response.status === 401 && !init.retried && askForToken()) return api(path, { ...init, retried: true });
  return response;
}

/** Headings for the error codes the server sends (src/errors.ts, src/serve/api-error.ts), in plain words. */
const CODE_HEADINGS = {
  llm_unavailable: 'The model could not be reached',
  llm_request: 'The model request failed',
  mcp: 'A tool server failed',
  config: 'The configuration has a problem',
  session_busy: 'This session is answering another question',
  session_not_found: 'This session does not exist',
  too_many_questions: 'Too many questions at once',
  index_locked: 'The documents are being indexed',
  embedding: 'The embedding model failed',
};

/** Headings by HTTP status, when the code has none. */
const STATUS_HEADINGS = {
  400: 'The server refused the request',
  401: 'This server needs its API token',
  403: 'The server refused access',
  404: 'Not found',
  409: 'Busy with another question',
  413: 'Too large for the server',
  422: 'The document could not be read',
  429: 'Too many questions at once',
};

/** The heading of an error with `code` (may be undefined) and HTTP `status` (0: an `error` event mid-answer). */
export function headingFor(code, status = 0) {
  if (CODE_HEADINGS[code]) return CODE_HEADINGS[code];
  if (STATUS_HEADINGS[status]) return STATUS_HEADINGS[status];
  if (status >= 500 || status === 0) return 'The question could not be answered';
  return `The server answered ${status}`;
}

/** The Failure of a non-OK response: a heading for its code or status, and the server's own message. */
export async function failureOf(response) {
  let error = {};
  try {
    error = (await response.json())?.error ?? {};
  } catch {
    // Not JSON (a proxy's page): the status alone says it.
  }
  return new Failure(headingFor(error.code, response.status), error.message ?? '', response.status);
}

/** GET `path` as JSON. @throws Failure */
export async function getJson(path) {
  const response = await api(path);
  if (!response.ok) throw await failureOf(response);
  return response.json();
}

/** Splits a growing SSE text into complete frames; returns [frames, rest]. */
function frames(buffer) {
  const parts = buffer.split('\n\n');
  const rest = parts.pop();
  return [
    parts.map((part) => {
      let event = 'message';
      const data = [];
      for (const line of part.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      return { event, data: JSON.parse(data.join('\n')) };
    }),
    rest,
  ];
}

/** The events of a text/event-stream response, as they arrive. */
export async function* sseEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      throw new Failure('The connection to the server was lost', 'The answer stopped arriving; the server may have stopped.');
    }
    if (chunk.done) return;
    let complete;
    [complete, buffer] = frames(buffer + chunk.value);
    yield* complete;
  }
}
