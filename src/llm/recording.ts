// Record and replay of LLM exchanges: `cortex ask --record FILE` writes every request and reply; `--replay FILE` answers from them with no LLM.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { errorMessage, LlmRequestError, UsageError } from '../errors.js';
import type { EmbedResult, GenerateRequest, GenerateResult, LlmClient } from './types.js';

/** First line of a recording: what it is and which model answered. */
export interface RecordingHeader {
  format: typeof RECORDING_FORMAT;
  version: typeof RECORDING_VERSION;
  provider: string;
  model: string;
  /** When the recording started, ISO 8601. */
  recorded_at: string;
  /** The question asked (`cortex ask --record`); absent in older recordings. */
  question?: string;
}

/** One exchange, one JSON line: the request as sent (without its abort signal) and the reply or the error. */
export interface RecordedExchange {
  method: 'generate' | 'embed';
  request: unknown;
  response?: unknown;
  error?: string;
}

const RECORDING_FORMAT = 'cortex-llm-recording';
const RECORDING_VERSION = 1;

/** The request as JSON: every field but `signal`, so fields added later (images…) are recorded too. */
function recordable(request: object): unknown {
  return JSON.parse(JSON.stringify(request, (key, value) => (key === 'signal' ? undefined : value)));
}

/**
 * Wraps `inner` so that every generate() and embed() is appended to `file` (JSON Lines: a header,
 * then one exchange per line, written as it completes so a crashed run keeps what it did). Every
 * other member of the client passes through untouched. The file is created (or emptied) at once.
 * @throws UsageError when the file cannot be written.
 */
export function recordingLlm(inner: LlmClient, file: string, options: { question?: string } = {}): LlmClient {
  /** Writes one JSON line: the first creates (or empties) the file, the rest append. */
  const write = (line: unknown, first = false) => {
    try {
      (first ? writeFileSync : appendFileSync)(file, `${JSON.stringify(line)}\n`);
    } catch (err) {
      throw new UsageError(`cannot write the recording ${file}: ${errorMessage(err)}`, { cause: err });
    }
  };
  const header: RecordingHeader = {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    provider: inner.provider,
    model: inner.model,
    recorded_at: new Date().toISOString(),
    ...(options.question !== undefined ? { question: options.question } : {}),
  };
  write(header, true);
  const recorded =
    <A extends unknown[], R>(method: RecordedExchange['method'], call: (...args: A) => Promise<R>, request: (...args: A) => object) =>
    async (...args: A): Promise<R> => {
      try {
        const response = await call(...args);
        write({ method, request: recordable(request(...args)), response } satisfies RecordedExchange);
        return response;
      } catch (err) {
        write({ method, request: recordable(request(...args)), error: errorMessage(err) } satisfies RecordedExchange);
        throw err;
      }
    };
  const generate = recorded('generate', (request: GenerateRequest) => inner.generate(request), (request) => request);
  const embed = recorded('embed', (texts: string[], options?: { signal?: AbortSignal }) => inner.embed(texts, options), (texts) => ({ texts }));
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'generate') return generate;
      if (prop === 'embed') return embed;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The question a recording was made for, when it says (older recordings do not). @throws UsageError as replayLlm. */
export function recordedQuestion(file: string): string | undefined {
  const { question } = readRecording(file).header;
  return typeof question === 'string' ? question : undefined;
}

/**
 * Reads a recording. @throws UsageError naming the file and line when it is unreadable, has no
 * header of this format and version, or a line is not an exchange.
 */
function readRecording(file: string): { header: RecordingHeader; exchanges: RecordedExchange[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read the recording ${file}: ${errorMessage(err)}`, { cause: err });
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const parsed = lines.map((line, i) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new UsageError(`${file}:${i + 1}: not JSON; a recording has one JSON object per line`);
    }
  });
  const header = parsed[0] as unknown as RecordingHeader | undefined;
  if (header?.format !== RECORDING_FORMAT || header.version !== RECORDING_VERSION) {
    throw new UsageError(`${file}: not a recording made by \`cortex ask --record\` (format ${RECORDING_FORMAT} version ${RECORDING_VERSION})`);
  }
  const exchanges = parsed.slice(1).map((e, i) => {
    if ((e.method !== 'generate' && e.method !== 'embed') || !('response' in e || 'error' in e)) {
      throw new UsageError(`${file}:${i + 2}: not a recorded exchange (needs "method" and "response" or "error")`);
    }
    return e as unknown as RecordedExchange;
  });
  return { header, exchanges };
}

/**
 * An LlmClient that answers from a recording, in the order the requests were recorded, and needs
 * no LLM. A recorded failure is thrown again as LlmRequestError. A request past the end of the
 * recording throws LlmRequestError saying how many were recorded (the run went differently).
 * @throws UsageError when the file is not a recording.
 */
export function replayLlm(file: string): LlmClient {
  const { header, exchanges } = readRecording(file);
  const queues = { generate: exchanges.filter((e) => e.method === 'generate'), embed: exchanges.filter((e) => e.method === 'embed') };
  const used = { generate: 0, embed: 0 };
  const next = (method: RecordedExchange['method']): unknown => {
    const exchange = queues[method][used[method]++];
    if (!exchange) {
      throw new LlmRequestError('replay', `the recording ${file} holds ${queues[method].length} ${method} replies and this run asked for more; the run went differently from the recorded one`);
    }
    if (exchange.error !== undefined) throw new LlmRequestError('replay', `recorded failure: ${exchange.error}`);
    return exchange.response;
  };
  return {
    provider: 'replay',
    model: header.model,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      if (request.signal?.aborted) throw new LlmRequestError('replay', 'request aborted');
      return next('generate') as GenerateResult;
    },
    async embed(): Promise<EmbedResult> {
      return next('embed') as EmbedResult;
    },
  };
}
