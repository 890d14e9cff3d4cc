// Server-sent events on one response, with a bound on what a slow reader may leave buffered.
import type { ServerResponse } from 'node:http';

/**
 * Bytes a client may leave unread before the stream is cut: agent events are small (a plan's code, tool
 * arguments up to about 1 MB), so a reader this far behind has stopped reading.
 */
export const MAX_SSE_BUFFERED_BYTES = 4 * 2 ** 20;

/** The part of a ServerResponse the stream uses (a plain Writable in tests). */
export type SseTarget = Pick<ServerResponse, 'write' | 'end' | 'destroy' | 'writableLength' | 'destroyed'> & {
  writeHead?: ServerResponse['writeHead'];
  flushHeaders?: () => void;
};

/**
 * Writes `event: <name>` / `data: <json>` frames. Headers go out with the first frame, so an error found before
 * any event can still be answered with a proper status. When more than `maxBufferedBytes` wait unsent, the
 * connection is destroyed (that viewer is then gone, as if it had closed the page): memory stays bounded.
 */
export class SseStream {
  private started = false;
  private stopped = false;

  constructor(
    private readonly res: SseTarget,
    private readonly maxBufferedBytes: number = MAX_SSE_BUFFERED_BYTES,
  ) {}

  /** True once the first frame (and the headers) went out. */
  get open(): boolean {
    return this.started;
  }

  /** True after end() or after the stream was cut for a slow reader. */
  get closed(): boolean {
    return this.stopped || this.res.destroyed;
  }

  /** Sends one event; false when the stream is closed (or was just cut because the reader fell behind). */
  send(event: string, data: unknown): boolean {
    if (this.closed) return false;
    if (!this.started) {
      this.started = true;
      this.res.writeHead?.(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      });
      this.res.flushHeaders?.();
    }
    // JSON.stringify escapes newlines, so the data fits on one `data:` line.
    this.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (this.res.writableLength > this.maxBufferedBytes) {
      this.stopped = true;
      this.res.destroy();
      return false;
    }
    return true;
  }

  /** Ends the response after the frames sent so far. */
  end(): void {
    if (this.closed) return;
    this.stopped = true;
    this.res.end();
  }
}
