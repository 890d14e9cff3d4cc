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
  /** Images shown to the model with the prompt (vision models): Ollama's `images`, Gemini's inline data parts. */
  images?: GenerateImage[];
  /** Most tokens the answer may have (Ollama `num_predict`, Gemini `maxOutputTokens`); default the model's own. */
  maxOutputTokens?: number;
  signal?: AbortSignal;
  /** The agent stage asking (set by the agent), so a client that serves stages with different models can route it. */
  stage?: LlmStageName;
  /** Live news of the request while it runs (streamed text, retries), for progress displays. Must not throw. */
  onProgress?: (progress: LlmProgress) => void;
}

/** The agent stages that ask a model to write: profiles.yaml `llm.perception` / `llm.decision` may give each its own. */
export type LlmStageName = 'perception' | 'decision' | 'extraction';

/**
 * What a client reports while a request runs:
 * - `text`: streamed text arrived; `completionTokens` is the count so far (the provider's, else estimated from the text);
 * - `retry`: an attempt failed and another follows after `delayMs` (`reason` in plain words, e.g. "HTTP 500");
 * - `notice`: something the user should know about the request, in plain words (e.g. the prompt is cut to fit the model's window).
 */
export type LlmProgress =
  | { kind: 'text'; delta: string; completionTokens: number }
  | { kind: 'retry'; attempt: number; maxAttempts: number; reason: string; delayMs: number }
  | { kind: 'notice'; message: string };

/** One image sent with a prompt. */
export interface GenerateImage {
  /** e.g. image/png, image/jpeg. */
  mimeType: string;
  /** The encoded image file's bytes (sent base64-encoded). */
  data: Uint8Array;
}

export interface GenerateResult {
  text: string;
  model: string;
  usage: TokenUsage;
  latencyMs: number;
  /**
   * True when the provider says the reply stopped because it reached the output-token limit (Ollama done_reason
   * "length", Gemini MAX_TOKENS, OpenAI finish_reason "length", Anthropic stop_reason "max_tokens").
   */
  hitOutputLimit?: boolean;
}

export interface EmbedResult {
  vectors: number[][];
  model: string;
  latencyMs: number;
}

/** A language model client. Implementations: Gemini, Ollama, OpenAI-compatible, Anthropic, and the scripted test client. */
export interface LlmClient {
  /** Provider name, e.g. 'gemini', 'ollama', 'openai', 'anthropic', 'scripted'. */
  readonly provider: string;
  /** The text model's name. */
  readonly model: string;
  generate(request: GenerateRequest): Promise<GenerateResult>;
  /**
   * Embeds texts with the configured embedding model; throws LlmRequestError if there is none. A `purpose` goes to a
   * provider that takes it as a parameter (Gemini's task type); others ignore it.
   */
  embed(texts: string[], options?: { signal?: AbortSignal; purpose?: EmbedPurpose }): Promise<EmbedResult>;
  /** The model a stage's requests go to, when the client routes stages to different models. */
  modelFor?(stage: LlmStageName): string;
  /** The models the provider serves (bounded list); absent for clients without a provider (scripted, replay). */
  listModels?(options?: { signal?: AbortSignal }): Promise<ProviderModel[]>;
}

/** One model a provider serves, as its model list reports it. */
export interface ProviderModel {
  /** The name to put in models.yaml or --model, e.g. gemini-flash-latest, llama3.1:8b. */
  name: string;
  /** Input window in tokens, when the list says. */
  inputTokens?: number;
  /** What it can do, when the list says: e.g. generateContent, embedContent. */
  actions?: string[];
  /** Model families, when the list says (Ollama's details.families, e.g. llama, bert, nomic-bert). */
  families?: string[];
}

/** Turns texts into vectors of one fixed dimension. */
export interface Embedder {
  /** Model id recorded in the index, e.g. `builtin:lexical-v2-1024` or `ollama:nomic-embed-text`; a change forces a rebuild. */
  readonly id: string;
  /** Length of every vector `embed` returns. */
  readonly dimension: number;
  /**
   * Lowest cosine similarity (vectors are L2-normalised before indexing) at which a vector hit counts as
   * relevant on its own, without sharing a term with the query. Default 0.5 when absent.
   */
  readonly relevanceFloor?: number;
  /**
   * Weight of this embedder's ranking in the fused search, BM25's being 1 (0: the fused search is BM25 alone).
   * Default DEFAULT_VECTOR_WEIGHT (rag/embed/embedder.ts) when absent.
   */
  readonly vectorWeight?: number;
  /**
   * True when vectors are computed in this process with no model, cheaply enough to compute again: an index built
   * with it stores no vectors while the fused search gives them no weight, and a vector search computes them then.
   */
  readonly inProcess?: boolean;
  /**
   * One vector per text, in order. `purpose` says what the texts are: what is searched (the default) or a search's
   * query; models trained with a prefix for each get theirs. May throw (network, model missing): callers report it per file.
   */
  embed(texts: string[], purpose?: EmbedPurpose): Promise<Float32Array[] | number[][]>;
}

/** What embedded texts are: the passages searched, or a query searching them. */
export type EmbedPurpose = 'document' | 'query';
