// `cortex models`: what each configured provider serves, the default model and what `auto` picks (`--json` too).
import type { LoadedConfig } from '../config/load-config.js';
import { textModels } from '../llm/check-model.js';
import { isChoice, listProviderModels, type ModelChoice, type ProviderListing } from '../llm/list-provider-models.js';
import { EXIT } from './exit-codes.js';
import type { Output } from './output.js';

/** Models shown per provider in the text view; `--json` has them all (up to the listing's own bound). */
export const MAX_MODELS_SHOWN = 60;

const PROVIDER_TITLES: Record<ProviderListing['provider'], string> = {
  gemini: 'Gemini',
  ollama: 'Ollama',
  openai: 'OpenAI-compatible',
  anthropic: 'Anthropic',
};

export async function modelsCommand(config: LoadedConfig, options: { model?: string }, out: Output): Promise<number> {
  const setting = options.model ?? config.profile.llm.text_generation;
  const report = await listProviderModels({ setting, models: config.models.models, modelsFile: config.modelsFile, env: process.env });
  const missing = notServed(report.default, report.providers);
  // A script can ask `cortex models` whether a question would find its model: 3, as `ask` would exit, when not.
  const status = 'error' in report.default || missing ? EXIT.llmUnavailable : EXIT.ok;
  if (out.json) {
    out.result(report);
    return status;
  }
  for (const listing of report.providers) printListing(listing, report.default, report.auto, out);
  out.line(`Default (${setting === 'auto' ? 'llm.text_generation: auto' : `"${setting}"`}): ${describe(report.default)}`);
  if (missing) out.line(`  ${out.red('not served')}: ${missing}`);
  if (setting !== 'auto') out.line(`auto would pick: ${describe(report.auto)}`);
  return status;
}

function printListing(listing: ProviderListing, chosen: ModelChoice, auto: ModelChoice, out: Output): void {
  const title = PROVIDER_TITLES[listing.provider];
  if (listing.status !== 'listed') {
    out.line(`${title} at ${listing.endpoint}: ${listing.message ?? listing.status}`);
    return;
  }
  const text = textModels(listing.models);
  out.line(`${title} at ${listing.endpoint}: ${text.length} model${text.length === 1 ? '' : 's'}`);
  if (text.length === 0 && listing.provider === 'ollama') out.line('  (none pulled: run `ollama pull qwen2.5-coder:7b`)');
  for (const model of text.slice(0, MAX_MODELS_SHOWN)) {
    const marks = [isChoice(chosen, listing.provider, model.name) ? 'default' : '', isChoice(auto, listing.provider, model.name) ? 'auto' : ''].filter(Boolean);
    const window = model.inputTokens ? out.dim(`  ${model.inputTokens.toLocaleString('en-US')} tokens`) : '';
    out.line(`  ${marks.length ? '*' : ' '} ${model.name}${window}${marks.length ? `  (${marks.join(', ')})` : ''}`);
  }
  if (text.length > MAX_MODELS_SHOWN) out.line(`    … and ${text.length - MAX_MODELS_SHOWN} more (see --json)`);
}

/** Plain words when the chosen model's provider was listed and does not serve it; else undefined. */
function notServed(choice: ModelChoice, listings: ProviderListing[]): string | undefined {
  if ('error' in choice) return undefined;
  const listing = listings.find((l) => l.provider === choice.provider && l.status === 'listed');
  if (!listing || listing.models.some((m) => isChoice(choice, listing.provider, m.name))) return undefined;
  const fix = choice.provider === 'ollama' ? `run \`ollama pull ${choice.model}\`, or pick one above with --model` : 'pick one above in models.yaml or with --model';
  return `${choice.provider} does not serve ${choice.model}: ${fix}.`;
}

function describe(choice: ModelChoice): string {
  if ('error' in choice) return `none: ${choice.error}`;
  return `${choice.provider} ${choice.model}${choice.note ? ` (${choice.note})` : ''}`;
}
