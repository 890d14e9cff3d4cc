// Traces of questions over OTLP/HTTP, on only when OTEL_EXPORTER_OTLP_ENDPOINT is set: the OpenTelemetry packages load then, never otherwise.
import type { AgentEvent, AgentRunResult } from '../agent/types.js';
import type { ToolCaller } from '../mcp/types.js';

/** One question's trace: fed the loop's events, it opens and closes the spans; its caller puts `traceparent` on calls. */
export interface QuestionTrace {
  onEvent(event: AgentEvent): void;
  /** `inner` whose tool calls carry the call span's W3C `traceparent` (and `tracestate`) in the request's `_meta`. */
  caller(inner: ToolCaller): ToolCaller;
  /** Ends every open span: with the result, or with the error the question stopped on. */
  end(outcome: { result: AgentRunResult } | { error: unknown }): void;
}

export interface Tracing {
  question(info: { sessionId: string }): QuestionTrace;
  /** Sends what is left (bounded by TRACE_FLUSH_TIMEOUT_MS) and stops. Never throws. */
  shutdown(): Promise<void>;
}

/**
 * The tracing of this process: null unless `env.OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces-only
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. The exporter reads the standard OTEL_* variables (headers, timeout).
 */
export async function startTracing(env: NodeJS.ProcessEnv): Promise<Tracing | null> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return null;
  const { createOtelTracing } = await import('./otel-tracing.js');
  return createOtelTracing();
}
