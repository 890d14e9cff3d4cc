// Schema of config/models.yaml: the LLMs Cortex-R may use, keyed by a name the profile refers to.
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { parseConfigText } from './parse.js';
import type { Profile } from './profiles.js';

export const ModelConfigSchema = z.strictObject({
  type: z.enum(['gemini', 'ollama', 'openai', 'anthropic']),
  /** Text-generation model name, e.g. gemini-flash-latest or qwen2.5-coder:7b. */
  model: z.string().min(1),
  /** Embedding model name, e.g. gemini-embedding-001 or nomic-embed-text. */
  embedding_model: z.string().min(1).optional(),
  /**
   * Gemini: API base URL (else GEMINI_BASE_URL). Ollama: host (else OLLAMA_HOST, else http://127.0.0.1:11434).
   * OpenAI: the server's base URL with its /v1 (else OPENAI_BASE_URL). Anthropic: else ANTHROPIC_BASE_URL.
   */
  base_url: z.url().optional(),
  /** Name of the environment variable holding the key (else GEMINI_API_KEY / GOOGLE_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY). */
  api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name').optional(),
  /** Per-request timeout. Local models on a CPU are slow, hence the generous default. */
  timeout_ms: z.int().min(1_000).max(3_600_000).default(120_000),
  /** Retries on 429 / 5xx / network errors, with exponential backoff. */
  max_retries: z.int().min(0).max(10).default(3),
  /** Sampling temperature for this model (a stage's own setting wins); else the provider's default. */
  temperature: z.number().min(0).max(2).optional(),
  /** Most tokens of one answer (a stage's own limit wins); Anthropic needs one and defaults to 8192. */
  max_output_tokens: z.int().min(1).max(1_000_000).optional(),
  /** The model's context window in tokens, when the provider does not report it (Ollama's num_ctx ceiling). */
  context_tokens: z.int().min(256).max(10_000_000).optional(),
});

export const ModelsFileSchema = z.strictObject({
  models: z.record(z.string().regex(/^[\w.-]+$/, 'a model key of letters, digits, _ . -'), ModelConfigSchema),
});

export type ModelConfig = z.infer<typeof ModelConfigSchema>;
export type ModelsFile = z.infer<typeof ModelsFileSchema>;

/** Parses and validates the text of a models file; throws ConfigError naming file, key and expectation. */
export function parseModels(text: string, file: string): ModelsFile {
  return parseConfigText(text, file, ModelsFileSchema);
}

/**
 * The models.yaml entry profiles.yaml `llm.vision` names, or null for `none`.
 * @throws ConfigError when it names no entry.
 */
export function visionModel(profile: Profile, models: ModelsFile, profileFile: string, modelsFile: string): ModelConfig | null {
  const key = profile.llm.vision;
  if (key === 'none') return null;
  const model = models.models[key];
  if (!model) throw new ConfigError(profileFile, 'llm.vision', `"${key}" is not a key of ${modelsFile} (or use none)`);
  return model;
}
