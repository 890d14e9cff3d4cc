// Schema of config/profiles.yaml: the agent, its strategy, sandbox limits, paths and MCP servers.
import { z } from 'zod';
import { BudgetSchema } from './budget-settings.js';
import { HooksSchema } from './hook-settings.js';
import { parseConfigText } from './parse.js';
import { isClientMetadataUrl } from './server-spec.js';
import { SANDBOX_LIMITS, STRATEGY_LIMITS, type Limit } from './limits.js';

/** Largest fusion weight accepted (profiles.yaml `rag.vector_weight`, the documents server's CORTEX_VECTOR_WEIGHT). */
export const MAX_VECTOR_WEIGHT = 10;

// Limits are finite, bounded integers: YAML's `.inf` would otherwise silently lift a cap.
const limitSchema = (limit: Limit) => boundedInt(limit.min, limit.max, limit.default);
const boundedInt = (min: number, max: number, fallback: number) => {
  const error = `expected a whole number from ${min} to ${max}`;
  return z.int({ error }).min(min, { error }).max(max, { error }).default(fallback);
};

export const ProfileSchema = z.strictObject({
  agent: z
    .strictObject({
      name: z.string().default('Cortex-R'),
      /** Read by nothing (kept so older profiles load; loadConfig warns). */
      id: z.string().optional(),
      description: z.string().default(''),
    })
    .prefault({}),
  strategy: z
    .strictObject({
      planning_mode: z.enum(['conservative', 'exploratory']).default('conservative'),
      exploration_mode: z.enum(['parallel', 'sequential']).default('parallel'),
      memory_fallback_enabled: z.boolean().default(true),
      max_steps: limitSchema(STRATEGY_LIMITS.maxSteps),
      max_lifelines_per_step: limitSchema(STRATEGY_LIMITS.maxLifelinesPerStep),
    })
    .prefault({}),
  memory: z
    .strictObject({
      /** Read by nothing (kept so older profiles load; loadConfig warns). */
      memory_service: z.boolean().optional(),
      summarize_tool_results: z.boolean().optional(),
      tag_interactions: z.boolean().optional(),
      recent_successes_limit: boundedInt(0, 100, 5),
      /** Earlier turns a follow-up's prompt carries, in characters; older turns are summarised by the model and kept. */
      conversation_chars: boundedInt(1_000, 200_000, 8_000),
    })
    .prefault({}),
  llm: z
    .strictObject({
      /** A key of models.yaml, or `auto` (Gemini if a key is set, else a local Ollama). */
      text_generation: z.string().min(1).default('auto'),
      /** A key of models.yaml, or `builtin` (offline lexical embedder). */
      embedding: z.string().min(1).default('builtin'),
      /** A key of models.yaml whose model reads images (captions figures, transcribes scans), or `none` (Tesseract OCR when installed). */
      vision: z.string().min(1).default('none'),
      /** The model perception asks (a models.yaml key or provider:model, like text_generation); unset: text_generation's. */
      perception: z.string().min(1).optional(),
      /** The model of the tool-less stages: strict mode's value extraction and the summary of older turns; unset: text_generation's. */
      extraction: z.string().min(1).optional(),
      /** The model that writes the plans (a models.yaml key or provider:model); unset: text_generation's. */
      decision: z.string().min(1).optional(),
    })
    .prefault({}),
  persona: z
    .strictObject({
      tone: z.string().default('concise'),
      verbosity: z.string().default('low'),
      behavior_tags: z.array(z.string()).default([]),
    })
    .prefault({}),
  sandbox: z
    .strictObject({
      max_tool_calls_per_plan: limitSchema(SANDBOX_LIMITS.maxToolCalls),
      timeout_ms: limitSchema(SANDBOX_LIMITS.timeoutMs),
      memory_mb: limitSchema(SANDBOX_LIMITS.memoryMb),
      max_output_chars: limitSchema(SANDBOX_LIMITS.maxOutputChars),
      tool_timeout_ms: limitSchema(SANDBOX_LIMITS.toolTimeoutMs),
    })
    .prefault({}),
  rag: z
    .strictObject({
      /** structural: by headings and paragraphs. semantic: the LLM splits (needs llm.text_generation to be a model key). */
      chunking: z.enum(['structural', 'semantic']).default('structural'),
      /**
       * Weight of the vector ranking in the fused search, BM25's being 1 (0: BM25 alone). Absent: the embedder's own
       * (0 for builtin, 1 for an embedding model); `cortex eval-retrieval` measures a value on your own data.
       */
      vector_weight: z.number().min(0).max(MAX_VECTOR_WEIGHT).optional(),
    })
    .prefault({}),
  security: z
    .strictObject({
      /** Refuse private and loopback addresses in web tools (link-local/metadata are always refused). */
      block_private_network: z.boolean().default(true),
    })
    .prefault({}),
  /** Tool calls that need the user's approval beyond what the tools' annotations say (README "Approvals"). */
  approvals: z
    .strictObject({
      /** Always asked about: `<server>.<tool>`, `<server>.*`, or a bare tool name (any server). */
      require: z.array(z.string().min(1)).default([]),
      /** Never asked about, in the same forms. */
      allow: z.array(z.string().min(1)).default([]),
    })
    .prefault({}),
  /** The data-flow policy (docs/security.md): where data may go, and what a tool is when its annotations are wrong. */
  policy: z
    .strictObject({
      /** Places data may be sent to or written at without being named in the question: hosts (`example.org`, `*.example.org`, `host:port`), mail addresses (`bob@example.org`, `@example.org`), file paths, or `<server>.<tool>` for tools that name no place (a web search). */
      destinations: z.array(z.string().min(1)).default([]),
      /** Per-tool class overrides, keyed `<server>.<tool>`, `<server>.*` or a bare tool name. */
      tools: z
        .record(
          z.string().min(1),
          z.strictObject({
            /** read: changes nothing, reaches nobody; write: changes data; egress: its arguments leave the machine. */
            class: z.enum(['read', 'write', 'egress']).optional(),
            /** What its results are: untrusted (anyone could have written them), private (the user's data); [] for neither. */
            returns: z.array(z.enum(['untrusted', 'private'])).optional(),
          }),
        )
        .default({}),
      /** Earlier results reach the planner only as typed values pulled out by a tool-less model call (one more LLM call per step). */
      strict: z.boolean().default(false),
    })
    .prefault({}),
  /** Commands run on the question's events, in Claude Code's shape (docs/hooks.md). */
  hooks: HooksSchema,
  /** Token and cost limits per question and per session, and model prices (docs/budgets.md). */
  budget: BudgetSchema,
  serve: z
    .strictObject({
      /** Address `cortex serve` binds; anything but loopback needs CORTEX_API_TOKEN. */
      host: z.string().min(1).default('127.0.0.1'),
      port: boundedInt(0, 65_535, 8765),
      /** Questions answered at once (HTTP and `cortex mcp`); one more gets 429 with Retry-After. */
      max_concurrent: boundedInt(1, 64, 4),
      /** Sandbox worker processes shared by the running questions. */
      sandbox_workers: boundedInt(1, 32, 2),
      /** Origins (e.g. http://localhost:3000) whose pages may call the API; other cross-origin requests are refused. */
      allowed_origins: z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'an origin like http://localhost:3000 (scheme, host, optional port)')).default([]),
      /** Largest JSON request body. */
      max_body_bytes: boundedInt(1_024, 10 * 2 ** 20, 2 ** 20),
      /** Largest document upload (the indexer's own per-file limit still applies). */
      max_upload_bytes: boundedInt(1_024, 1024 * 2 ** 20, 50 * 2 ** 20),
    })
    .prefault({}),
  paths: z
    .strictObject({
      documents: z.string().default('documents'),
      memory: z.string().default('memory'),
      faiss_index: z.string().default('faiss_index'),
      /** Tool lists and instructions of MCP servers, kept between runs so a question need not wait for them. */
      cache: z.string().default('cache'),
      /** Saved plans (`cortex skills`), one readable YAML file each. */
      skills: z.string().default('memory/skills'),
    })
    .prefault({}),
  mcp: z
    .strictObject({
      /** Folders offered to servers as MCP roots; default the documents folder and the working directory. */
      roots: z.array(z.string().min(1)).optional(),
      /** How long a server may take to start (a cold `npx -y` install included); an entry's `timeout` overrides it. */
      start_timeout_ms: boundedInt(1_000, 600_000, 90_000),
      /**
       * HTTPS URL of a client ID metadata document you host (SEP-991), offered as the client_id to authorization
       * servers that accept one; others are registered with dynamically. An entry's `oauth.clientMetadataUrl` overrides it.
       */
      oauth_client_metadata_url: z.string().refine(isClientMetadataUrl, 'expected an https:// URL with a path').optional(),
    })
    .prefault({}),
  /**
   * MCP servers, validated one by one in mcp-entries.ts so a broken entry disables only that server: a list in the
   * original's shape (`id`, `script` or `command`/`args`, …) and the `mcpServers` map other MCP clients use.
   */
  mcp_servers: z.array(z.unknown()).default([]),
  mcpServers: z.record(z.string(), z.unknown()).optional(),
});

export type Profile = z.infer<typeof ProfileSchema>;

/** Parses and validates the text of a profile; throws ConfigError naming file, key and expectation. */
/** Keys older profiles had that nothing reads: accepted with a warning, so a profile from before still loads. */
export const UNUSED_PROFILE_KEYS: ReadonlyArray<readonly [string, string]> = [
  ['agent', 'id'],
  ['memory', 'memory_service'],
  ['memory', 'summarize_tool_results'],
  ['memory', 'tag_interactions'],
];

export function parseProfile(text: string, file: string): Profile {
  return parseConfigText(text, file, ProfileSchema);
}
