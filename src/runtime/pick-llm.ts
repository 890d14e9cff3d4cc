// Which model answers: a replay, the configured model per stage (with the persona and AGENTS.md instructions), recorded when asked.
import { findAgentsFiles, personaInstructions, standingInstructions } from '../config/agents-md.js';
import type { LoadedConfig } from '../config/load-config.js';
import { LlmUnavailableError, UsageError } from '../errors.js';
import { instructedLlm } from '../llm/instructed-llm.js';
import { recordingLlm, replayLlm } from '../llm/recording.js';
import { resolveTextModel } from '../llm/select.js';
import { stagedLlm } from '../llm/staged-llm.js';
import type { LlmClient, LlmStageName } from '../llm/types.js';
import type { Notices } from './notices.js';
import { pendingLlm } from './pending-llm.js';
import type { RuntimeOptions } from './runtime-options.js';

/** The LLM: a replay of a recording (no LLM needed), else the configured model, recorded when asked. */
export async function pickLlm(config: LoadedConfig, options: RuntimeOptions, out: Notices): Promise<LlmClient> {
  if (options.llm) return options.llm;
  if (options.record && options.replay) throw new UsageError('--record and --replay cannot be used together');
  if (options.replay) {
    const replay = replayLlm(options.replay);
    out.info(`model: replay of ${options.replay} (recorded from ${replay.model})`);
    return replay;
  }
  // Read once per start: the AGENTS.md files of the working folder up to its repository root, and the user's.
  const agents = findAgentsFiles();
  if (agents.length && out.verbose) out.info(`standing instructions: ${agents.map((f) => f.path + (f.cut ? ' (cut)' : '')).join(', ')}`);
  const connect = async () => {
    const { key, client } = await resolveTextModel({
      setting: options.model ?? config.profile.llm.text_generation,
      models: config.models.models,
      modelsFile: config.modelsFile,
      env: process.env,
    });
    out.info(`model: ${key} (${client.provider} ${client.model})`);
    // --model names the model of every stage; without it, profiles.yaml may give perception and decision their own.
    const staged = options.model ? client : stagedLlm(client, await stageModels(config, out));
    const instructed = instructedLlm(staged, [personaInstructions(config.profile), standingInstructions(agents)].filter(Boolean).join('\n\n'));
    return options.record ? recordingLlm(instructed, options.record, options.recordQuestion !== undefined ? { question: options.recordQuestion } : {}) : instructed;
  };
  try {
    return await connect();
  } catch (err) {
    if (!(options.startWithoutLlm && err instanceof LlmUnavailableError)) throw err;
    out.error(`warning: ${err.message}\nStarting anyway: questions get a "no LLM" error until one is reachable.`);
    return pendingLlm(connect);
  }
}

/** The clients of the stages profiles.yaml gives a model of their own (llm.perception, llm.decision). */
async function stageModels(config: LoadedConfig, out: Notices): Promise<Partial<Record<LlmStageName, LlmClient>>> {
  const stages: Partial<Record<LlmStageName, LlmClient>> = {};
  for (const stage of ['perception', 'decision', 'extraction'] as const) {
    const setting = config.profile.llm[stage];
    if (!setting || setting === config.profile.llm.text_generation) continue;
    const { key, client } = await resolveTextModel({ setting, models: config.models.models, modelsFile: config.modelsFile, env: process.env });
    out.info(`model for ${stage}: ${key} (${client.provider} ${client.model})`);
    stages[stage] = client;
  }
  return stages;
}
