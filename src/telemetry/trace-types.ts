// What a question's trace and the process's tracing offer; otel-tracing.ts implements them with OpenTelemetry.
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
