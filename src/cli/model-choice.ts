// The REPL's /model: which chat models each provider offers (the current one marked), and whether a named one is there.
import type { LoadedConfig } from '../config/load-config.js';
import { closestNames } from '../closest-names.js';
import { isTextModel, sameModel, textModels } from '../llm/check-model.js';
import { listProviderModels, providerListing, type ProviderListing } from '../llm/list-provider-models.js';
import { modelForSetting } from '../llm/select.js';
import type { Output } from './output.js';

/** Chat models listed per provider by `/model`; `cortex models --json` has them all. */
export const MAX_REPL_MODELS_SHOWN = 30;
/** Close matches named when a model is refused. */
const CLOSE_MATCHES = 3;

const TITLES: Record<ProviderListing['provider'], string> = { gemini: 'Gemini', ollama: 'Ollama', openai: 'OpenAI-compatible', anthropic: 'Anthropic' };

/** The model answering now: a provider and model, or none when no model was reachable at start. */
export interface CurrentModel {
  provider: string;
  model: string;
}

/** `/model` alone: the current model, then each provider's chat models (embedding models left out), the current one marked. */
export async function printChatModels(config: LoadedConfig, current: CurrentModel, out: Output): Promise<void> {
  const none = current.provider === 'none';
  out.error(none ? 'Current model: none yet (no model was reachable).' : `Current model: ${current.provider} ${current.model}`);
  const report = await listProviderModels({ setting: config.profile.llm.text_generation, models: config.models.models, modelsFile: config.modelsFile, env: process.env });
  for (const listing of report.providers) {
    const title = `${TITLES[listing.provider]} (${listing.provider}:NAME)`;
    if (listing.status !== 'listed') {
      out.error(out.err.dim(`${title}: ${listing.message ?? listing.status}`));
      continue;
    }
    const chat = textModels(listing.models);
    out.error(`${title}: ${chat.length === 0 ? (listing.provider === 'ollama' ? 'no chat model pulled: run `ollama pull qwen2.5-coder:7b`' : 'no chat models') : ''}`.trimEnd());
    for (const m of chat.slice(0, MAX_REPL_MODELS_SHOWN)) {
      const here = !none && current.provider === listing.provider && sameModel(listing.provider, m.name, current.model);
      out.error(`  ${here ? '*' : ' '} ${m.name}${here ? '  (current)' : ''}`);
    }
    if (chat.length > MAX_REPL_MODELS_SHOWN) out.error(`    … and ${chat.length - MAX_REPL_MODELS_SHOWN} more (cortex models --json lists them all)`);
  }
  out.error(out.err.dim('Switch with /model NAME: a models.yaml key, PROVIDER:NAME, or auto.'));
}

/**
 * Why `/model SETTING` cannot be used, in plain words, or undefined when it can (or only trying will tell: `auto`,
 * an unknown key, a provider whose list could not be read). Refused: a model the provider does not serve (for
 * Ollama, not pulled), an embedding model, a provider with no key or not running. Close chat models are named.
 */
export async function modelRefusal(config: LoadedConfig, setting: string): Promise<string | undefined> {
  if (setting === 'auto') return undefined;
  let target;
  try {
    target = modelForSetting(setting, config.models.models, config.modelsFile).config;
  } catch {
    return undefined;
  }
  const listing = await providerListing(target, process.env);
  const title = TITLES[target.type];
  if (listing.status === 'no_key' || listing.status === 'unreachable') return `${title} cannot be used: ${listing.message}.`;
  if (listing.status !== 'listed') return undefined;
  const found = listing.models.find((m) => sameModel(target.type, m.name, target.model));
  if (found && isTextModel(found)) return undefined;
  const chat = textModels(listing.models).map((m) => m.name);
  const near = closestNames(target.model, chat, CLOSE_MATCHES);
  const nearText = near.length ? ` Close matches: ${near.join(', ')}.` : chat.length ? '' : ' It offers no chat model.';
  if (found) return `${target.model} is an embedding model, not a chat model.${nearText}`;
  const pull = target.type === 'ollama' ? ` (not pulled: \`ollama pull ${target.model}\` fetches it)` : '';
  return `${target.model} is not available from ${title}${pull}.${nearText}`;
}
