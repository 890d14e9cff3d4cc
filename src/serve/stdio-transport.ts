// The stdio transport of `cortex mcp`: newline-delimited JSON-RPC like the SDK's, but a message past the size limit
// is dropped and answered with an error instead of closing the connection (which left the client waiting).
import { deserializeMessage, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';

/** Largest message read, in bytes: the SDK's own stdio limit (10 MB). */
export const MAX_MCP_MESSAGE_BYTES = 10 * 2 ** 20;
/** Bytes at the start of an oversized message searched for its request id, to answer it. */
const ID_SEARCH_BYTES = 1_024;
/** A request id written first among the top-level keys, and one written last (a string or an integer). */
const HEAD_ID = /^\s*\{(?:[^{}[\]]*?,)?\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/;
const TAIL_ID = /,\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*\}\s*$/;
/** JSON-RPC "Invalid Request". */
const INVALID_REQUEST = -32600;

/** A JSON-RPC transport over a readable (stdin) and a writable (stdout) stream. */
export class LimitedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The current line is over the limit: its bytes are dropped until its newline; its first and last bytes are kept. */
  private oversized: { head: Buffer; tail: Buffer } | null = null;
  private closed = false;
  private readonly onData = (chunk: Buffer) => this.read(chunk);
  private readonly onEnd = () => void this.close();
  private readonly onStreamError = (error: Error) => this.onerror?.(error);

  constructor(
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
    private readonly maxMessageBytes = MAX_MCP_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(serializeMessage(message))) resolve();
      else this.output.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onStreamError);
    this.pending = [];
    this.oversized = null;
    this.onclose?.();
  }

  private read(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
    this.take(chunk.subarray(start));
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.oversized) {
      this.oversized.tail = lastBytes(Buffer.concat([this.oversized.tail, part]));
      return;
    }
    if (this.pendingBytes + part.length > this.maxMessageBytes) {
      const all = Buffer.concat([...this.pending, part]);
      this.oversized = { head: all.subarray(0, ID_SEARCH_BYTES), tail: lastBytes(all) };
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    this.pending.push(part);
    this.pendingBytes += part.length;
  }

  private endLine(): void {
    if (this.oversized) {
      const { head, tail } = this.oversized;
      this.oversized = null;
      this.refuseOversized(head.toString('utf8'), tail.toString('utf8'));
      return;
    }
    const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingBytes = 0;
    if (!line.trim()) return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (err) {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    this.onmessage?.(message);
  }

  /**
   * Answers a dropped request with an error when its id is found as a top-level key among its first or last bytes
   * (the SDK's client writes it last); reports the drop either way.
   */
  private refuseOversized(head: string, tail: string): void {
    const text = `a message larger than ${Math.round(this.maxMessageBytes / 2 ** 20)} MB was dropped; send smaller requests`;
    this.onerror?.(new Error(text));
    const id = HEAD_ID.exec(head)?.[1] ?? TAIL_ID.exec(tail)?.[1];
    if (id === undefined) return;
    void this.send({ jsonrpc: '2.0', id: JSON.parse(id) as string | number, error: { code: INVALID_REQUEST, message: text } });
  }
}

function lastBytes(buffer: Buffer): Buffer {
  return buffer.length <= ID_SEARCH_BYTES ? buffer : Buffer.from(buffer.subarray(buffer.length - ID_SEARCH_BYTES));
}
