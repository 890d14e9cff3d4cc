// Planning strategies: which decision prompt a run uses, and the memory fallback that narrows a re-plan's tools.
import { UsageError } from '../errors.js';
import type { ToolInfo } from '../mcp/types.js';

/** The three planning strategies; `--strategy` takes exactly these names. */
export const STRATEGY_NAMES = ['conservative', 'exploratory-parallel', 'exploratory-sequential'] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

/** The decision prompt each strategy renders (files in prompts/). Data, not an if-chain. */
export const DECISION_TEMPLATES: Readonly<Record<StrategyName, string>> = {
  conservative: 'decision-conservative.txt',
  'exploratory-parallel': 'decision-exploratory-parallel.txt',
  'exploratory-sequential': 'decision-exploratory-sequential.txt',
};

/** profiles.yaml `strategy.planning_mode` × `exploration_mode` → strategy name. */
const STRATEGY_BY_MODES: Readonly<Record<string, StrategyName>> = {
  'conservative/parallel': 'conservative',
  'conservative/sequential': 'conservative',
  'exploratory/parallel': 'exploratory-parallel',
  'exploratory/sequential': 'exploratory-sequential',
};

/** Tools the memory fallback considers "recent": the last this many distinct successful tools. */
export const MEMORY_FALLBACK_TOOL_LIMIT = 10;

/** True when `name` is one of STRATEGY_NAMES. */
export function isStrategyName(name: string): name is StrategyName {
  return (STRATEGY_NAMES as readonly string[]).includes(name);
}

/**
 * The strategy for a run: the override (e.g. `--strategy`) when given, else the profile's modes.
 * exploration_mode only matters for the exploratory planning mode. Defaults: conservative, parallel.
 * @throws UsageError naming the valid choices when a name or mode is unknown.
 */
export function resolveStrategy({
  planningMode = 'conservative',
  explorationMode = 'parallel',
  override,
}: {
  planningMode?: string;
  explorationMode?: string;
  override?: string;
}): StrategyName {
  if (override !== undefined) {
    if (isStrategyName(override)) return override;
    throw new UsageError(`unknown strategy "${override}"; choose one of: ${STRATEGY_NAMES.join(', ')}`);
  }
  const strategy = STRATEGY_BY_MODES[`${planningMode}/${explorationMode}`];
  if (strategy) return strategy;
  throw new UsageError(
    `unknown planning_mode/exploration_mode "${planningMode}/${explorationMode}"; planning_mode is conservative or exploratory, exploration_mode is parallel or sequential`,
  );
}

/** The tools a decision prompt shows, and whether the memory fallback narrowed them. */
export interface CatalogueChoice {
  tools: ToolInfo[];
  /** True when the memory fallback put recently successful tools first. */
  narrowed: boolean;
}

/**
 * Picks the catalogue for one decision: the tools the prompt lists, which are exactly the tools
 * the code may call. Normally the tools of the servers perception selected. On a forced re-plan
 * (a retry) with the memory fallback enabled, the tools that recently succeeded in this session
 * come first (the original narrowed to them alone; that hid the very tool a retry often has to
 * call again with corrected arguments), followed by the step's other tools — provided at least
 * one recent success is still offered by a server; otherwise nothing changes.
 * `recentSuccesses` are tool names, most recent first (SessionMemory.findRecentSuccesses).
 */
export function chooseCatalogue({
  selected,
  allTools,
  isRetry,
  memoryFallbackEnabled,
  recentSuccesses,
}: {
  selected: ToolInfo[];
  allTools: ToolInfo[];
  isRetry: boolean;
  memoryFallbackEnabled: boolean;
  recentSuccesses: string[];
}): CatalogueChoice {
  if (!isRetry || !memoryFallbackEnabled || recentSuccesses.length === 0) return { tools: selected, narrowed: false };
  const recent = new Set(recentSuccesses.slice(0, MEMORY_FALLBACK_TOOL_LIMIT));
  const first = allTools.filter((tool) => recent.has(tool.name));
  if (first.length === 0) return { tools: selected, narrowed: false };
  // By name: the step's tools come from a later listing than allTools, as other objects for the same tools.
  const firstNames = new Set(first.map((tool) => tool.name));
  return { tools: [...first, ...selected.filter((tool) => !firstNames.has(tool.name))], narrowed: true };
}
