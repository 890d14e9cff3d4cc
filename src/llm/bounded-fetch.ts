// A fetch for the LLM SDKs that carries our AbortSignal and caps how many bytes a response body may hold.

/** Most bytes one LLM HTTP response may hold (a streamed reply's JSON framing included): well above a 1 MB reply. */
export const MAX_RESPONSE_BYTES = 16 * 2 ** 20;

/** A response body passed its byte limit; the read was stopped. */
export class ResponseTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the answer passed ${Math.round(limitBytes / 2 ** 20)} MB and was cut off`);
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * A fetch that aborts with `signal` (besides the caller's own signal) and errors the body once it passes
 * `maxBytes`, so a server that never stops sending cannot fill memory.
 */
export function boundedFetch(signal: AbortSignal | undefined, maxBytes = MAX_RESPONSE_BYTES): typeof fetch {
  return async (input, init = {}) => {
    const signals = [signal, init.signal ?? undefined].filter((s): s is AbortSignal => s !== undefined);
    const response = await fetch(input, { ...init, ...(signals.length ? { signal: AbortSignal.any(signals) } : {}) });
    if (!response.body) return response;
    let seen = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(new ResponseTooLargeError(maxBytes));
        else controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
