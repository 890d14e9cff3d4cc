// Perception: the LLM reads the task and picks the MCP servers whose tools the decision may use.
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import type { LlmClient } from '../llm/types.js';
import type { ServerSummary } from '../mcp/types.js';
import { timedGenerate, type LlmCallInfo, type LlmEventFrame } from './llm-call.js';
import { DEFAULT_PROMPTS_DIR, renderPromptFile } from './render-prompt.js';
import { describeToday, systemClock, type Clock, type UserLocale } from './today.js';

/** The perception prompt in prompts/. */
export const PERCEPTION_TEMPLATE = 'perception.txt';
/** Caps on what one server contributes to the prompt, so a verbose profile cannot crowd it out. */
const MAX_SERVER_DESCRIPTION_CHARS = 300;
const MAX_SERVER_CAPABILITIES = 30;
/** Tool names and instructions of a server shown to perception (third-party servers list no capabilities). */
const MAX_SERVER_TOOL_NAMES = 30;
const MAX_SERVER_INSTRUCTIONS_CHARS = 300;
/** Caps on the parsed answer, so a rambling model cannot bloat the decision prompt. */
const MAX_INTENT_CHARS = 500;
const MAX_ENTITIES = 30;
const MAX_ENTITY_CHARS = 200;

/** What perception concluded. On any failure, every server is selected and `fallback` says why. */
export interface Perception {
  intent: string;
  entities: string[];
  tool_hint: string | null;
  /** Known server ids only, in the order of the profile. */
  selected_servers: string[];
  /** True when the model's answer was unusable (or selected nothing known) and all servers were chosen. */
  fallback: boolean;
  fallback_reason?: string;
  /** The LLM request, for the trace and the run's totals. */
  llm: LlmCallInfo;
}

/** The JSON Schema the model's answer is constrained to (Ollama `format`, Gemini `responseSchema`). */
export const PERCEPTION_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    intent: { type: 'string' },
    entities: { type: 'array', items: { type: 'string' } },
    tool_hint: { type: 'string' },
    selected_servers: { type: 'array', items: { type: 'string' } },
  },
  required: ['intent', 'entities', 'tool_hint', 'selected_servers'],
};

// Lenient where small models often slip (numbers as entities, null hint), strict on the shape.
const PerceptionAnswerSchema = z.object({
  intent: z.string(),
  entities: z.array(z.union([z.string(), z.number(), z.boolean()]).transform(String)).default([]),
  tool_hint: z.string().nullable().optional(),
  selected_servers: z.array(z.string()),
});

/** The JSON object in a model's answer: the whole text, else the outermost braces (models add fences or prose). */
function parseJsonAnswer(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const start = text.indexOf('{');
    const end = text.lastIndexOf('}');
    if (start < 0 || end <= start) throw new Error('the answer holds no JSON object');
    return JSON.parse(text.slice(start, end + 1));
  }
}

function describeServers(servers: ServerSummary[]): string {
  if (servers.length === 0) return '(no servers are configured)';
  return servers
    .map((s) => {
      const description = s.description.replace(/\s+/g, ' ').trim().slice(0, MAX_SERVER_DESCRIPTION_CHARS) || '(no description)';
      // A third-party server lists no capabilities in the profile: its own tool names stand in for them.
      const names = s.capabilities.length ? s.capabilities.slice(0, MAX_SERVER_CAPABILITIES) : (s.tools ?? []).slice(0, MAX_SERVER_TOOL_NAMES);
      const more = !s.capabilities.length && (s.tools?.length ?? 0) > MAX_SERVER_TOOL_NAMES ? ` (+${s.tools!.length - MAX_SERVER_TOOL_NAMES} more)` : '';
      const instructions = s.instructions?.replace(/\s+/g, ' ').trim().slice(0, MAX_SERVER_INSTRUCTIONS_CHARS);
      return `- ${s.id}: ${description}; capabilities: ${names.join(', ') || 'not listed'}${more}${instructions ? `; instructions: ${instructions}` : ''}`;
    })
    .join('\n');
}

/**
 * Asks the model which servers the task needs, in JSON mode, and validates the answer.
 * Unknown server ids are dropped (ids match case-insensitively). Any failure — the request, the
 * JSON, the shape, or an empty selection — selects all servers with `fallback: true`, since
 * perception only narrows and must never stop a run. Throws only when `signal` was aborted, or
 * when the prompt template is broken (PromptError: our bug, not the model's).
 */
export async function perceive({
  llm,
  query,
  servers,
  memorySummary,
  promptsDir = DEFAULT_PROMPTS_DIR,
  signal,
  events,
  clock = systemClock,
  userLocale,
}: {
  llm: LlmClient;
  query: string;
  servers: ServerSummary[];
  memorySummary: string;
  promptsDir?: string;
  signal?: AbortSignal;
  /** Where the request's live events go. */
  events?: LlmEventFrame;
  /** Today's date for the prompt (default: the system clock). */
  clock?: Clock;
  /** The user's time zone and locale (default: the process's). */
  userLocale?: UserLocale;
}): Promise<Perception> {
  const prompt = await renderPromptFile(
    PERCEPTION_TEMPLATE,
    { servers: describeServers(servers), query, memory_summary: memorySummary, today: describeToday(clock(), userLocale) },
    promptsDir,
  );
  const generation = await timedGenerate(llm, { prompt, jsonSchema: PERCEPTION_JSON_SCHEMA, temperature: 0, signal }, events);
  const allIds = servers.map((s) => s.id);
  const fallback = (reason: string): Perception => ({
    intent: '',
    entities: [],
    tool_hint: null,
    selected_servers: allIds,
    fallback: true,
    fallback_reason: reason,
    llm: generation.call,
  });
  if (!generation.ok) {
    if (signal?.aborted) throw generation.error;
    return fallback(`the perception request failed: ${errorMessage(generation.error)}`);
  }
  let answer: z.infer<typeof PerceptionAnswerSchema>;
  try {
    const parsed = PerceptionAnswerSchema.safeParse(parseJsonAnswer(generation.result.text));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return fallback(`the answer has the wrong shape (${issue.path.join('.') || 'top level'}: ${issue.message})`);
    }
    answer = parsed.data;
  } catch (err) {
    return fallback(`the answer is not JSON: ${errorMessage(err)}`);
  }
  const wanted = new Set(answer.selected_servers.map((id) => id.trim().toLowerCase()));
  const selected = allIds.filter((id) => wanted.has(id.toLowerCase()));
  const base = {
    intent: answer.intent.slice(0, MAX_INTENT_CHARS),
    entities: answer.entities.slice(0, MAX_ENTITIES).map((e) => e.slice(0, MAX_ENTITY_CHARS)),
    tool_hint: answer.tool_hint?.trim() || null,
  };
  if (selected.length === 0) {
    const said = answer.selected_servers.length ? answer.selected_servers.join(', ').slice(0, MAX_INTENT_CHARS) : 'none';
    return { ...fallback(`no known server was selected (the model said: ${said})`), ...base };
  }
  return { ...base, selected_servers: selected, fallback: false, llm: generation.call };
}
