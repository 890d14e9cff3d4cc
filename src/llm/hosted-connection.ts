// What the hosted-API clients (Anthropic, OpenAI-compatible) share: the endpoint and key from models.yaml or the
// environment, their SDK loaded on the first request, and each request run with our retries and plain-words failures.
import type { ModelConfig } from '../config/models.js';
import { LlmUnavailableError } from '../errors.js';
import { DEFAULT_MODEL_SETTING } from './check-model.js';
import { baseUrlOf, findKey } from './provider-endpoint.js';
import type { StreamTuning } from './read-stream.js';
import { requestWithRetries, type RetryTuning } from './retry.js';
import { describeSdkFailure } from './sdk-failure.js';
import type { GenerateRequest, ProviderModel } from './types.js';

/** One hosted provider as its client describes it. */
export interface HostedProvider<Api> {
  provider: string;
  /** How messages name it: "Anthropic", "the OpenAI-compatible server". */
  title: string;
  /** Key variable tried after models.yaml's api_key_env. */
  keyVariable: string;
  /** The variable naming another endpoint, e.g. OPENAI_BASE_URL. */
  baseUrlVariable: string;
  /** The provider's own endpoint, which needs a key. */
  defaultBaseUrl: string;
  /** The error's text when that endpoint has no key; `looked` lists the variables tried. */
  missingKey: (looked: string) => string;
  /** Creates the SDK's client (its own retries off: ours count); called once, on the first request. */
  load: (key: string | undefined, baseUrl: string) => Promise<Api>;
}

/** A request run on the SDK: `listing` marks the model list itself, whose failure must not list again. */
export type HostedRun<Api> = <T>(
  attempt: (api: Api, signal: AbortSignal) => Promise<T>,
  signal: AbortSignal | undefined,
  model: string,
  onProgress?: GenerateRequest['onProgress'],
  listing?: boolean,
) => Promise<{ value: T; latencyMs: number }>;

export interface HostedConnection<Api> {
  baseUrl: string;
  keySource: string | undefined;
  /** Where the model name was set, for messages. */
  setting: string;
  run: HostedRun<Api>;
}

/**
 * The endpoint, key and request runner of one models.yaml entry; nothing is contacted until the first request.
 * `listModels` is the client's own model list, which a failure's message may quote.
 * @throws LlmUnavailableError when the provider's own endpoint is used without a key.
 */
export function hostedConnection<Api>(
  hosted: HostedProvider<Api>,
  config: ModelConfig,
  env: NodeJS.ProcessEnv,
  options: { tuning?: RetryTuning & StreamTuning; setting?: string; listModels: () => Promise<ProviderModel[]> },
): HostedConnection<Api> {
  const { provider, title, keyVariable, baseUrlVariable, defaultBaseUrl } = hosted;
  const baseUrl = baseUrlOf(config, baseUrlVariable, defaultBaseUrl, env);
  const found = findKey(config, keyVariable, env);
  if (!found && baseUrl === defaultBaseUrl) throw new LlmUnavailableError(hosted.missingKey(`${config.api_key_env ? `${config.api_key_env}, ` : ''}${keyVariable}`));
  const setting = options.setting ?? DEFAULT_MODEL_SETTING;
  let sdk: Promise<Api> | undefined;
  const run: HostedRun<Api> = (attempt, signal, model, onProgress, listing = false) =>
    requestWithRetries({
      provider,
      timeoutMs: config.timeout_ms,
      maxRetries: config.max_retries,
      signal,
      ...(options.tuning ? { tuning: options.tuning } : {}),
      ...(onProgress ? { onProgress } : {}),
      attempt: async (attemptSignal) => attempt(await (sdk ??= hosted.load(found?.key, baseUrl)), attemptSignal),
      describe: (err) =>
        describeSdkFailure(err, {
          provider,
          title,
          endpoint: baseUrl,
          keySource: found?.source,
          endpointSetting: `${baseUrlVariable} / base_url in models.yaml`,
          model,
          setting,
          secret: found?.key,
          // While listing, a 404 must not list again.
          listModels: listing ? async () => [] : options.listModels,
        }),
    });
  return { baseUrl, keySource: found?.source, setting, run };
}
