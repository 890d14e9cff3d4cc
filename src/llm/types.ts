// The one interface every stage uses to talk to a language model.

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface GenerateRequest {
  /** The user prompt (already rendered). */
  prompt: string;
  /** Optional system instruction. */
  system?: string;
  /** When set, the model is constrained to JSON matching this JSON Schema. */
  jsonSchema?: Record<string, unknown>;
  temperature?: number;
  signal?: AbortSignal;
}

export interface GenerateResult {
  text: string;
  model: string;
  usage: TokenUsage;
  latencyMs: number;
}

export interface EmbedResult {
  vectors: number[][];
  model: string;
  latencyMs: number;
}

/** A language model client. Implementations: Gemini, Ollama, and the scripted test client. */
export interface LlmClient {
  /** Provider name, e.g. 'gemini', 'ollama', 'scripted'. */
  readonly provider: string;
  /** The text model's name. */
  readonly model: string;
  generate(request: GenerateRequest): Promise<GenerateResult>;
  /** Embeds texts with the configured embedding model; throws LlmRequestError if there is none. */
  embed(texts: string[], options?: { signal?: AbortSignal }): Promise<EmbedResult>;
}
