// Reply shapes other than a solve() block: a JSON tool call, and code in a language we do not run.
import type { CodeBlock } from './extract-code.js';

/** A tool call the model wrote as JSON, or JSON we could not read as one. */
export type JsonReply = { kind: 'call'; tool: string; args: Record<string, unknown> } | { kind: 'unknown'; keys: string[] };

const NAME_KEYS = ['tool', 'name', 'tool_name', 'action', 'function'];
const ARGUMENT_KEYS = ['arguments', 'args', 'parameters', 'action_input', 'input'];

function asObject(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** Reads `{"tool"|"name": …, "arguments"|"args"|"parameters": …}`, OpenAI's `{function: {name, arguments}}` and `tool_calls: [one]`. */
function readCall(value: unknown): JsonReply {
  let obj = asObject(value);
  if (!obj) return { kind: 'unknown', keys: [] };
  const calls = obj.tool_calls;
  if (Array.isArray(calls) && calls.length === 1) obj = asObject(calls[0]) ?? obj;
  const fn = asObject(obj.function);
  if (fn) obj = fn;
  const nameKey = NAME_KEYS.find((k) => typeof obj![k] === 'string' && (obj![k] as string).trim() !== '');
  const argsKey = ARGUMENT_KEYS.find((k) => k in obj!);
  let args: unknown = argsKey ? obj[argsKey] : {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return { kind: 'unknown', keys: Object.keys(obj) };
    }
  }
  const argsObject = asObject(args);
  if (!nameKey || !argsObject) return { kind: 'unknown', keys: Object.keys(obj) };
  return { kind: 'call', tool: (obj[nameKey] as string).trim(), args: argsObject };
}

/** Fence labels whose body may be a JSON tool call. */
const JSON_LABELS = new Set(['', 'json', 'jsonc', 'javascript', 'js', 'tool_call', 'tool_code']);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The JSON tool call in a reply: a ```json block, a block or whole reply that is one JSON object,
 * or the outermost braces of a reply with prose around them. Null when the reply holds no JSON object.
 */
export function findJsonReply(text: string, blocks: CodeBlock[]): JsonReply | null {
  const candidates = [...blocks.filter((b) => JSON_LABELS.has(b.label)).map((b) => b.code.trim()), text.trim()];
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  // Braces inside prose count only when the reply has no fences (a shell block's JSON body is not a tool call).
  if (start >= 0 && end > start && !blocks.some((b) => b.fenced)) candidates.push(text.slice(start, end + 1));
  for (const candidate of candidates) {
    if (!candidate.startsWith('{')) continue;
    const value = parseJson(candidate);
    if (value !== undefined) return readCall(value);
  }
  return null;
}

/** The plan a JSON tool call stands for: that one call, its result handed to the next step. */
export function planForToolCall(tool: string, args: Record<string, unknown>): string {
  return [
    'async function solve() {',
    `  const result = await tools[${JSON.stringify(tool)}](${JSON.stringify(args)});`,
    '  return "FURTHER_PROCESSING_REQUIRED: " + (typeof result === "string" ? result : JSON.stringify(result));',
    '}',
  ].join('\n');
}

/** The plan a prose `FINAL_ANSWER: x` stands for. */
export function planForAnswer(answer: string): string {
  return `async function solve() {\n  return ${JSON.stringify(`FINAL_ANSWER: ${answer}`)};\n}`;
}

/** Python's way of defining a function. */
const PYTHON_DEF_RE = /^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\([^)]*\)[ \t]*(?:->[^:\n]+)?:[ \t]*$/m;
const LABEL_LANGUAGES: Record<string, string> = {
  python: 'Python', py: 'Python', python3: 'Python',
  bash: 'a shell command', sh: 'a shell command', shell: 'a shell command', zsh: 'a shell command', console: 'a shell command',
  rust: 'Rust', rs: 'Rust', go: 'Go', golang: 'Go', java: 'Java', c: 'C', cpp: 'C++', 'c++': 'C++', csharp: 'C#', cs: 'C#',
  ruby: 'Ruby', rb: 'Ruby', php: 'PHP', sql: 'SQL', kotlin: 'Kotlin', swift: 'Swift',
};
const CONTENT_LANGUAGES: Array<[RegExp, string]> = [
  [PYTHON_DEF_RE, 'Python'],
  [/^[ \t]*(?:pub[ \t]+)?fn[ \t]+\w+[ \t]*\(/m, 'Rust'],
  [/^[ \t]*(?:package[ \t]+main|func[ \t]+\w+[ \t]*\()/m, 'Go'],
  [/^[ \t]*(?:\$[ \t]+)?(?:curl|wget|npm|node|python3?|pip)[ \t]/m, 'a shell command'],
];

/** The language a block that does not parse as JavaScript is written in, when we can tell; else null. */
export function foreignLanguage(block: CodeBlock): string | null {
  const byContent = CONTENT_LANGUAGES.find(([re]) => re.test(block.code));
  if (byContent) return byContent[1];
  return LABEL_LANGUAGES[block.label] ?? null;
}
