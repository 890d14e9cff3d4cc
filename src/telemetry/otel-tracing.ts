// The OpenTelemetry side of traces (loaded only when an OTLP endpoint is set): spans per question, step, LLM call and tool call.
import { context, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentEvent } from '../agent/types.js';
import { PROJECT_ROOT } from '../paths.js';
import { errorMessage } from '../errors.js';
import type { ToolCaller } from '../mcp/types.js';
import type { ToolCallRecord } from '../sandbox/types.js';
import type { QuestionTrace, Tracing } from './trace-types.js';

/** Longest the CLI waits at exit for the last spans to be sent: a collector that is down must not hold it. */
export const TRACE_FLUSH_TIMEOUT_MS = 5_000;
/** Tool spans open at once per question (calls in flight); past it, calls go untraced rather than grow a map. */
const MAX_OPEN_TOOL_SPANS = 200;

export function createOtelTracing(): Tracing {
  const { version } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'cortex-r', [ATTR_SERVICE_VERSION]: version }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  const tracer = provider.getTracer('cortex-r', version);
  return {
    question: ({ sessionId }) => new OtelQuestionTrace(tracer, sessionId),
    shutdown: async () => {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, TRACE_FLUSH_TIMEOUT_MS)));
      await Promise.race([provider.shutdown().catch(() => undefined), limit]);
      clearTimeout(timer);
    },
  };
}

/** W3C trace context of `span` (https://www.w3.org/TR/trace-context/), for a request's `_meta`. */
function traceContextOf(span: Span): Record<string, string> {
  const { traceId, spanId, traceFlags, traceState } = span.spanContext();
  const state = traceState?.serialize();
  return { traceparent: `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`, ...(state ? { tracestate: state } : {}) };
}

class OtelQuestionTrace implements QuestionTrace {
  private readonly root: Span;
  private readonly rootContext: Context;
  private step: { number: number; span: Span; context: Context; attempts: number } | null = null;
  private llm: Span | null = null;
  /** Open tool spans by call (tool, server, arguments), oldest first: events carry copies of the record, not ids. */
  private readonly tools = new Map<string, Span[]>();
  /** The tool span started last and not yet claimed by a call: the proxy emits `start` just before it calls. */
  private unclaimed: Span | null = null;

  constructor(private readonly tracer: Tracer, sessionId: string) {
    this.root = tracer.startSpan('invoke_agent cortex-r', {
      kind: SpanKind.INTERNAL,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'cortex-r', 'gen_ai.conversation.id': sessionId },
    });
    this.rootContext = trace.setSpan(context.active(), this.root);
  }

  private parent(): Context {
    return this.step?.context ?? this.rootContext;
  }

  onEvent(event: AgentEvent): void {
    switch (event.type) {
      case 'planning':
        if (this.step?.number !== event.step) {
          this.endStep();
          const span = this.tracer.startSpan(`step ${event.step}`, { attributes: { 'cortex.step': event.step, 'cortex.strategy': event.strategy } }, this.rootContext);
          this.step = { number: event.step, span, context: trace.setSpan(this.rootContext, span), attempts: 0 };
        }
        this.step.attempts++;
        break;
      case 'outcome':
        this.step?.span.setAttribute('cortex.outcome', event.outcome);
        break;
      case 'llm_start':
        this.llm?.end();
        this.llm = this.tracer.startSpan(`chat ${event.model}`, {
          kind: SpanKind.CLIENT,
          attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': event.model, 'cortex.stage': event.stage },
        }, this.parent());
        break;
      case 'llm_end':
        if (!this.llm) break;
        this.llm.setAttributes({ 'gen_ai.response.model': event.model, 'gen_ai.usage.input_tokens': event.promptTokens, 'gen_ai.usage.output_tokens': event.completionTokens });
        if (event.error) this.llm.setStatus({ code: SpanStatusCode.ERROR, message: event.error });
        this.llm.end();
        this.llm = null;
        break;
      case 'tool_call':
        this.onToolCall(event.phase, event.record);
        break;
      default:
        break;
    }
  }

  private onToolCall(phase: 'start' | 'end', record: ToolCallRecord): void {
    const key = JSON.stringify([record.tool, record.server ?? '', record.args]);
    const open = this.tools.get(key) ?? [];
    // A progress notification repeats `start` for a call already open.
    if (phase === 'start' && record.progress === undefined) {
      if ([...this.tools.values()].reduce((n, l) => n + l.length, 0) >= MAX_OPEN_TOOL_SPANS) return;
      const span = this.tracer.startSpan(`execute_tool ${record.tool}`, {
        kind: SpanKind.CLIENT,
        attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': record.tool, 'mcp.method.name': 'tools/call', ...(record.server ? { 'cortex.tool.server': record.server } : {}) },
      }, this.parent());
      this.tools.set(key, [...open, span]);
      this.unclaimed = span;
      return;
    }
    if (phase !== 'end') return;
    const span = open.shift();
    if (open.length === 0) this.tools.delete(key);
    if (!span) return;
    if (record.server) span.setAttribute('cortex.tool.server', record.server);
    span.setAttribute('cortex.tool.outcome', record.ok ? 'ok' : 'error');
    if (!record.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: (record.error ?? 'failed').slice(0, 500) });
    span.end();
    if (this.unclaimed === span) this.unclaimed = null;
  }

  caller(inner: ToolCaller): ToolCaller {
    return {
      callTool: (server, tool, args, options) => {
        const span = this.unclaimed;
        this.unclaimed = null;
        return inner.callTool(server, tool, args, span ? { ...options, meta: { ...options?.meta, ...traceContextOf(span) } } : options);
      },
      ...(inner.readResource ? { readResource: inner.readResource.bind(inner) } : {}),
    };
  }

  private endStep(): void {
    if (!this.step) return;
    this.step.span.setAttribute('cortex.attempts', this.step.attempts);
    this.step.span.end();
    this.step = null;
  }

  end(outcome: Parameters<QuestionTrace['end']>[0]): void {
    this.llm?.end();
    for (const spans of this.tools.values()) spans.forEach((s) => s.end());
    this.tools.clear();
    this.endStep();
    if ('result' in outcome) {
      const { result } = outcome;
      this.root.setAttributes({ 'cortex.status': result.status, 'gen_ai.usage.input_tokens': result.usage.prompt_tokens, 'gen_ai.usage.output_tokens': result.usage.completion_tokens });
      if (result.status !== 'answered') this.root.setStatus({ code: SpanStatusCode.ERROR, message: (result.reason ?? result.status).slice(0, 500) });
    } else {
      this.root.setAttribute('cortex.status', 'error');
      this.root.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(outcome.error).slice(0, 500) });
    }
    this.root.end();
  }
}
