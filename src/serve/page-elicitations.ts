// Servers' requests for input shown on the page streaming the question, and the page's answers (POST /v1/elicitations/:id).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { MAX_ELICITATION_WAIT_MS, type Elicit, type ElicitationAnswer, type ElicitationRequest, type FormField } from '../mcp/elicitation.js';
import { ApiError } from './api-error.js';

interface Pending {
  request: ElicitationRequest;
  resolve: (answer: ElicitationAnswer) => void;
}

const AnswerSchema = z.strictObject({
  action: z.enum(['accept', 'decline', 'cancel'], { error: 'action must be "accept", "decline" or "cancel"' }),
  content: z.record(z.string(), z.unknown()).optional(),
});

/** A field's value checked as its schema asks (the page's inputs are typed, but anything may be posted). */
function fieldSchema(field: FormField & { minLength?: number; maxLength?: number; items?: { enum?: string[] } }): z.ZodType {
  const choices = field.enum ?? field.oneOf?.map((o) => o.const);
  if (field.type === 'array') {
    const items = field.items?.enum;
    return z.array(items && items.length > 0 ? z.enum(items as [string, ...string[]]) : z.string());
  }
  if (choices && choices.length > 0) return z.enum(choices as [string, ...string[]]);
  if (field.type === 'boolean') return z.boolean();
  if (field.type === 'number' || field.type === 'integer') {
    let number = field.type === 'integer' ? z.number().int() : z.number();
    if (field.minimum !== undefined) number = number.min(field.minimum);
    if (field.maximum !== undefined) number = number.max(field.maximum);
    return number;
  }
  let text = z.string();
  if (field.minLength !== undefined) text = text.min(field.minLength);
  if (field.maxLength !== undefined) text = text.max(field.maxLength);
  return text;
}

/** The zod schema of a form's content: its fields, the required ones required, nothing else. */
export function contentSchema(request: Extract<ElicitationRequest, { mode: 'form' }>): z.ZodType<Record<string, string | number | boolean | string[]>> {
  const shape = Object.fromEntries(
    Object.entries(request.fields).map(([name, field]) => [name, request.required.includes(name) ? fieldSchema(field) : fieldSchema(field).optional()]),
  );
  return z.strictObject(shape) as unknown as z.ZodType<Record<string, string | number | boolean | string[]>>;
}

/** The first problem of a parse, in the words a person filling the form needs. */
function problem(error: z.ZodError): string {
  const issue = error.issues[0]!;
  if (issue.code === 'unrecognized_keys') return `unknown field(s): ${issue.keys.join(', ')}`;
  const key = issue.path.join('.');
  return key ? `${key}: ${issue.message}` : issue.message;
}

/** Every request waiting for a page's answer, by id (random, so only the page it was sent to knows it). */
export class PageElicitations {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly maxWaitMs: number = MAX_ELICITATION_WAIT_MS) {}

  /** Requests waiting now. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * The Elicit of one streamed question: each request is sent as an `elicitation` event through `send` and waits
   * for answer(); it ends as cancelled when `questionSignal` or the server's own signal aborts, when the stream is
   * closed, or after maxWaitMs. An `elicitation_end` event ({id, action}) says it is over either way.
   */
  forStream(send: (event: string, data: unknown) => boolean, questionSignal: AbortSignal): Elicit {
    return (request, { signal }) => {
      const id = randomUUID();
      return new Promise<ElicitationAnswer>((resolve) => {
        const stop = AbortSignal.any([questionSignal, signal]);
        const finish = (answer: ElicitationAnswer) => {
          if (!this.pending.delete(id)) return;
          clearTimeout(timer);
          stop.removeEventListener('abort', onAbort);
          send('elicitation_end', { id, action: answer.action });
          resolve(answer);
        };
        const onAbort = () => finish({ action: 'cancel' });
        const timer = setTimeout(() => finish({ action: 'cancel' }), this.maxWaitMs);
        this.pending.set(id, { request, resolve: finish });
        stop.addEventListener('abort', onAbort);
        if (stop.aborted || !send('elicitation', { id, ...request })) finish({ action: 'cancel' });
      });
    };
  }

  /**
   * Answers request `id` with a body {action, content}; content is checked against the form's schema first.
   * @throws ApiError 404 when nothing waits under `id` (answered, cancelled or timed out), 400 for a malformed
   * body or content that does not fit the form (the request keeps waiting for a corrected one).
   */
  answer(id: string, body: unknown): void {
    const pending = this.pending.get(id);
    if (!pending) throw new ApiError(404, 'elicitation_not_found', 'nothing is waiting for this answer: it was answered, cancelled, or waited too long');
    const parsed = AnswerSchema.safeParse(body);
    if (!parsed.success) throw new ApiError(400, 'bad_request', problem(parsed.error));
    const { action, content } = parsed.data;
    if (action !== 'accept') {
      if (content !== undefined) throw new ApiError(400, 'bad_request', `content goes only with "accept", not "${action}"`);
      return pending.resolve({ action });
    }
    if (pending.request.mode === 'url') {
      if (content !== undefined) throw new ApiError(400, 'bad_request', 'a URL request takes no content');
      return pending.resolve({ action: 'accept' });
    }
    const checked = contentSchema(pending.request).safeParse(content ?? {});
    if (!checked.success) throw new ApiError(400, 'bad_request', problem(checked.error));
    pending.resolve({ action: 'accept', content: checked.data });
  }
}
