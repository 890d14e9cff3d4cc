// Start-up check of the configured text model against the provider's own model list.
import { CortexError, LlmRequestError, ModelNotFoundError, errorMessage } from '../errors.js';
import type { AttemptFailure } from './retry.js';
import type { LlmClient, ProviderModel } from './types.js';

/** How long the start-up check waits for the provider's model list. */
export const MODEL_CHECK_TIMEOUT_MS = 10_000;
/** The wording of where a model name is set, when the client was not told. */
export const DEFAULT_MODEL_SETTING = 'the model in models.yaml, or --model';

/** The check's outcome: the model is served (with the list read), or an error to show (ModelNotFoundError, unreachable…). */
export type ModelCheck = { ok: true; models: ProviderModel[] } | { ok: false; error: CortexError };

/** True when a listed model is the configured one (Gemini: without "models/"; Ollama: a name without a tag is `:latest`). */
export function sameModel(provider: string, listed: string, configured: string): boolean {
  if (provider === 'ollama') {
    const full = (name: string) => (name.includes(':') ? name : `${name}:latest`);
    return full(listed) === full(configured);
  }
  const bare = (name: string) => name.replace(/^models\//, '');
  return bare(listed) === bare(configured);
}

/** Model families that only embed text (Ollama reports nomic-embed-text, mxbai-embed-large, all-minilm as these). */
const EMBEDDING_FAMILIES = new Set(['bert', 'nomic-bert']);

/** The listed models that write text (not embedding models: by the provider's actions, Ollama's family, or the name). */
export function textModels(models: ProviderModel[]): ProviderModel[] {
  return models.filter((m) => isTextModel(m));
}

/** True unless the model only embeds, transcribes or moderates (see textModels). */
export function isTextModel(m: ProviderModel): boolean {
  if (m.actions) return m.actions.includes('generateContent');
  if (m.families?.some((f) => EMBEDDING_FAMILIES.has(f.toLowerCase()))) return false;
  return !/embed|bge-|minilm|rerank|whisper|tts|dall-e|moderation|transcribe/i.test(m.name);
}

/**
 * Asks the provider which models it serves and whether `client.model` is one of them. Clients without a provider
 * (scripted, replay) pass. Never throws: a missing model is a ModelNotFoundError naming the setting to change and the
 * models that exist (for Ollama, `ollama pull NAME`); an unreachable provider is its LlmRequestError.
 */
export async function checkTextModel(client: LlmClient, options: { signal?: AbortSignal; setting?: string } = {}): Promise<ModelCheck> {
  if (!client.listModels) return { ok: true, models: [] };
  let models: ProviderModel[];
  try {
    models = await client.listModels({ signal: options.signal ?? AbortSignal.timeout(MODEL_CHECK_TIMEOUT_MS) });
  } catch (err) {
    const error = err instanceof CortexError ? err : new LlmRequestError(client.provider, `cannot list models: ${errorMessage(err)}`, undefined, { cause: err });
    return { ok: false, error };
  }
  if (models.some((m) => sameModel(client.provider, m.name, client.model))) return { ok: true, models };
  const setting = options.setting ?? (client as { setting?: string }).setting ?? DEFAULT_MODEL_SETTING;
  return { ok: false, error: new ModelNotFoundError(client.provider, client.model, setting, textModels(models).map((m) => m.name)) };
}

/**
 * A request's 404 for a model the provider does not serve, as the retry loop's failure: a ModelNotFoundError naming
 * the models `listNames` finds (none when listing fails).
 */
export async function modelNotFoundFailure(
  err: unknown,
  status: number,
  detail: string,
  missing: { provider: string; model: string; setting: string },
  listNames: () => Promise<string[]>,
): Promise<AttemptFailure> {
  const available = await listNames().catch((): string[] => []);
  return { status, retryable: false, message: detail, error: new ModelNotFoundError(missing.provider, missing.model, missing.setting, available, { cause: err }) };
}
