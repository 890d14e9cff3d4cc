// Reply shapes other than a solve() block: JSON tool calls, and code in a language (or a diff) we do not run.
import type { CodeBlock } from './code-block.js';

/** A tool call the model wrote as JSON, several of them, or JSON we could not read as one. */
export type JsonReply =
  | { kind: 'call'; tool: string; args: Record<string, unknown> }
  | { kind: 'several'; tools: string[] }
  | { kind: 'unknown'; keys: string[] };

type Call = { tool: string; args: Record<string, unknown> };

const NAME_KEYS = ['tool', 'name', 'tool_name', 'action', 'function'];
const ARGUMENT_KEYS = ['arguments', 'args', 'parameters', 'action_input', 'input'];
/** Opening braces tried per text, each a scan to its closing brace and a JSON.parse (bounds a reply full of braces). */
const MAX_JSON_STARTS_TRIED = 40;

function asObject(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** The calls one JSON value stands for: `{tool|name, arguments|args|parameters}`, OpenAI's `{function: {name, arguments}}`, `tool_calls: [...]`, or a list of them. */
function readCalls(value: unknown): Call[] | { keys: string[] } {
  if (Array.isArray(value)) {
    const calls = value.map(readCalls);
    return calls.every(Array.isArray) ? calls.flat() : { keys: [] };
  }
  let obj = asObject(value);
  if (!obj) return { keys: [] };
  if (Array.isArray(obj.tool_calls)) return readCalls(obj.tool_calls);
  const fn = asObject(obj.function);
  if (fn) obj = fn;
  const nameKey = NAME_KEYS.find((k) => typeof obj![k] === 'string' && (obj![k] as string).trim() !== '');
  const argsKey = ARGUMENT_KEYS.find((k) => k in obj!);
  let args: unknown = argsKey ? obj[argsKey] : {};
  if (typeof args === 'string') args = parseJson(args);
  const argsObject = asObject(args);
  if (!nameKey || !argsObject) return { keys: Object.keys(obj) };
  return [{ tool: (obj[nameKey] as string).trim(), args: argsObject }];
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

/** Index just past the object that opens at `start` (strings and escapes respected), or -1 when it never closes. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  // Bounded by the text's length.
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

/** The top-level JSON objects in a text, in order (prose and tags around them skipped). */
function jsonObjects(text: string): Array<{ value: unknown; whole: boolean }> {
  const found: Array<{ value: unknown; whole: boolean }> = [];
  let from = 0;
  for (let tried = 0; tried < MAX_JSON_STARTS_TRIED; tried++) {
    const start = text.indexOf('{', from);
    if (start < 0) break;
    const end = objectEnd(text, start);
    if (end < 0) break;
    const value = parseJson(text.slice(start, end));
    if (value === undefined) {
      from = start + 1;
      continue;
    }
    found.push({ value, whole: text.slice(0, start).trim() === '' && text.slice(end).trim() === '' });
    from = end;
  }
  return found;
}

/**
 * The JSON tool call in a reply: in a JSON (or unlabelled) block, or, when the reply has no fences,
 * anywhere in its text (Hermes `<tool_call>` tags, Mistral's `[TOOL_CALLS]`, prose before and after).
 * Two calls or more are 'several' (one plan runs one call this way); JSON that is the whole block or
 * reply but no call is 'unknown'. Null when the reply holds no JSON object.
 */
export function findJsonReply(text: string, blocks: CodeBlock[]): JsonReply | null {
  const sources = blocks.some((b) => b.fenced) ? blocks.filter((b) => JSON_LABELS.has(b.label)).map((b) => b.code) : [text];
  let unknown: string[] | null = null;
  for (const source of sources) {
    const calls: Call[] = [];
    for (const { value, whole } of jsonObjects(source)) {
      const read = readCalls(value);
      if (Array.isArray(read)) calls.push(...read);
      else if (whole && unknown === null) unknown = read.keys;
    }
    if (calls.length > 1) return { kind: 'several', tools: calls.map((c) => c.tool) };
    if (calls.length === 1) return { kind: 'call', ...calls[0]! };
  }
  return unknown ? { kind: 'unknown', keys: unknown } : null;
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

const PYTHON_LABELS = new Set(['python', 'py', 'python3', 'ipython', 'pycon']);
/**
 * Lines only Python has: `def`, `import x` / `from x import y`, block headers ending in a colon,
 * print(), f-strings, keyword arguments (`add(a=2, b=3)`, not on a line defining a function), final_answer().
 */
const PYTHON_LINE_RES = [
  /^[ \t]*(?:async[ \t]+)?def[ \t]+\w+[ \t]*\([^)]*\)[ \t]*(?:->[^:\n]+)?:[ \t]*$/m,
  /^[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+[\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*$/m,
  /^[ \t]*(?:for[ \t]+\w+[ \t]+in[ \t]|while[ \t]|if[ \t]|elif[ \t]|else|try|except|with[ \t]|class[ \t]+\w+)[^\n{;]*:[ \t]*$/m,
  /^[ \t]*print[ \t]*\(/m,
  /\bf["'][^"'\n]*\{/,
  /^(?!.*\b(?:function|=>)).*\b\w+\([ \t]*\w+[ \t]*=[ \t]*[^=>\s]/m,
  /^[ \t]*final_answer[ \t]*\(/m,
];

/** Whether a block is Python: a Python fence label, or Python-only lines (even when the text also parses as JavaScript). */
export function looksLikePython(block: CodeBlock): boolean {
  if (PYTHON_LABELS.has(block.label)) return true;
  return PYTHON_LINE_RES.filter((re) => re.test(block.code)).length >= (block.label === '' ? 1 : 2);
}

/** Lines of a diff or an aider SEARCH/REPLACE edit. */
const DIFF_RES = [/^@@ .* @@/m, /^--- \S.*\n\+\+\+ \S/m, /^<<<<<<< SEARCH[ \t]*$/m, /^>>>>>>> REPLACE[ \t]*$/m];

/** Whether a block is an edit to earlier code (a diff or SEARCH/REPLACE) rather than code. */
export function looksLikeDiff(block: CodeBlock): boolean {
  return block.label === 'diff' || block.label === 'patch' || DIFF_RES.some((re) => re.test(block.code));
}

const LABEL_LANGUAGES: Record<string, string> = {
  bash: 'a shell command', sh: 'a shell command', shell: 'a shell command', zsh: 'a shell command', console: 'a shell command',
  rust: 'Rust', rs: 'Rust', go: 'Go', golang: 'Go', java: 'Java', c: 'C', cpp: 'C++', 'c++': 'C++', csharp: 'C#', cs: 'C#',
  ruby: 'Ruby', rb: 'Ruby', php: 'PHP', sql: 'SQL', kotlin: 'Kotlin', swift: 'Swift',
};
const CONTENT_LANGUAGES: Array<[RegExp, string]> = [
  [/^[ \t]*(?:pub[ \t]+)?fn[ \t]+\w+[ \t]*\(/m, 'Rust'],
  [/^[ \t]*(?:package[ \t]+main|func[ \t]+\w+[ \t]*\()/m, 'Go'],
  [/^[ \t]*(?:\$[ \t]+)?(?:curl|wget|npm|node|python3?|pip|echo|ls|cat|cd)[ \t]/m, 'a shell command'],
];

/** The language (other than JavaScript and Python) a block that does not parse is written in, when we can tell; else null. */
export function foreignLanguage(block: CodeBlock): string | null {
  const byContent = CONTENT_LANGUAGES.find(([re]) => re.test(block.code));
  if (byContent) return byContent[1];
  return LABEL_LANGUAGES[block.label] ?? null;
}
