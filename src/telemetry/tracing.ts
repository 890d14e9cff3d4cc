// Traces of questions over OTLP/HTTP, on only when OTEL_EXPORTER_OTLP_ENDPOINT is set: the OpenTelemetry packages load then, never otherwise.
import type { QuestionTrace, Tracing } from './trace-types.js';

export type { QuestionTrace, Tracing };

/**
 * The tracing of this process: null unless `env.OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces-only
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. The exporter reads the standard OTEL_* variables (headers, timeout).
 */
export async function startTracing(env: NodeJS.ProcessEnv): Promise<Tracing | null> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return null;
  const { createOtelTracing } = await import('./otel-tracing.js');
  return createOtelTracing();
}
