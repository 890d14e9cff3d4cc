// Schema of config/profiles.yaml: the agent, its strategy, sandbox limits, paths and MCP servers.
import { z } from 'zod';
import { parseConfigText } from './parse.js';

const serverId = z.string().regex(/^[a-z0-9][a-z0-9_-]*$/i, 'an id of letters, digits, _ and -');
const envMap = z.record(z.string(), z.string());

/** One MCP server in the original's shape; give `script` (run with this Node) or `command` (+ `args`). */
const McpServerEntrySchema = z
  .strictObject({
    id: serverId,
    script: z.string().min(1).optional(),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    cwd: z.string().optional(),
    env: envMap.default({}),
    description: z.string().default(''),
    capabilities: z.array(z.string()).default([]),
    basic_tools: z.array(z.string()).default([]),
  })
  .refine((s) => Boolean(s.script) !== Boolean(s.command), {
    message: 'give exactly one of `script` (a .js file run with Node) or `command` (with `args`)',
  });

/** The `mcpServers` shape other MCP clients (Claude Desktop, Cursor…) use, keyed by id. */
const McpServersMapSchema = z.record(
  serverId,
  z.strictObject({
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: envMap.default({}),
    cwd: z.string().optional(),
    description: z.string().default(''),
  }),
);

// Limits are finite, bounded integers: YAML's `.inf` would otherwise silently lift a cap.
const boundedInt = (min: number, max: number, fallback: number) => {
  const error = `expected a whole number from ${min} to ${max}`;
  return z.int({ error }).min(min, { error }).max(max, { error }).default(fallback);
};

export const ProfileSchema = z.strictObject({
  agent: z
    .strictObject({
      name: z.string().default('Cortex-R'),
      id: z.string().default('cortex_r_001'),
      description: z.string().default(''),
    })
    .prefault({}),
  strategy: z
    .strictObject({
      planning_mode: z.enum(['conservative', 'exploratory']).default('conservative'),
      exploration_mode: z.enum(['parallel', 'sequential']).default('parallel'),
      memory_fallback_enabled: z.boolean().default(true),
      max_steps: boundedInt(1, 20, 3),
      max_lifelines_per_step: boundedInt(1, 10, 3),
    })
    .prefault({}),
  memory: z
    .strictObject({
      memory_service: z.boolean().default(true),
      summarize_tool_results: z.boolean().default(true),
      tag_interactions: z.boolean().default(true),
      recent_successes_limit: boundedInt(0, 100, 5),
    })
    .prefault({}),
  llm: z
    .strictObject({
      /** A key of models.yaml, or `auto` (Gemini if a key is set, else a local Ollama). */
      text_generation: z.string().min(1).default('auto'),
      /** A key of models.yaml, or `builtin` (offline lexical embedder). */
      embedding: z.string().min(1).default('builtin'),
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
      max_tool_calls_per_plan: boundedInt(1, 100, 5),
      timeout_ms: boundedInt(100, 600_000, 30_000),
      memory_mb: boundedInt(8, 1024, 64),
      max_output_chars: boundedInt(1_000, 1_000_000, 100_000),
      /** One MCP call from the sandbox; well under the SDK's 60 s default. */
      tool_timeout_ms: boundedInt(100, 300_000, 20_000),
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
      vector_weight: z.number().min(0).max(10).optional(),
    })
    .prefault({}),
  security: z
    .strictObject({
      /** Refuse private and loopback addresses in web tools (link-local/metadata are always refused). */
      block_private_network: z.boolean().default(true),
    })
    .prefault({}),
  paths: z
    .strictObject({
      documents: z.string().default('documents'),
      memory: z.string().default('memory'),
      faiss_index: z.string().default('faiss_index'),
    })
    .prefault({}),
  mcp_servers: z.array(McpServerEntrySchema).default([]),
  mcpServers: McpServersMapSchema.optional(),
});

export type Profile = z.infer<typeof ProfileSchema>;

/** Parses and validates the text of a profile; throws ConfigError naming file, key and expectation. */
export function parseProfile(text: string, file: string): Profile {
  return parseConfigText(text, file, ProfileSchema);
}
