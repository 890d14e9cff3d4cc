// Loads prompt templates from prompts/ and fills their {placeholders} strictly.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CortexError } from '../errors.js';
import { PROJECT_ROOT } from '../paths.js';
import { fileVersion, KeptByVersion } from '../kept-by-version.js';

/** Where prompt templates live unless a caller passes another folder (tests do). */
export const DEFAULT_PROMPTS_DIR = join(PROJECT_ROOT, 'prompts');

/**
 * A template and its values disagree, or a template file cannot be read. This is our bug or a
 * user's broken edit of prompts/, never the model's, so it stops the run.
 */
export class PromptError extends CortexError {
  constructor(
    readonly template: string,
    message: string,
    readonly placeholder?: string,
    options?: { cause?: unknown },
  ) {
    super('prompt', `prompt template ${template}: ${message}`, options);
  }
}

/**
 * `{name}` is a placeholder (lower-case snake_case, no spaces); `{{name}}` writes a literal `{name}`.
 * Any other brace is literal text, so JavaScript like `{ a: 1 }` or `{"key": 2}` needs no escaping.
 */
const PLACEHOLDER_PATTERN = /\{\{([a-z][a-z0-9_]*)\}\}|\{([a-z][a-z0-9_]*)\}/g;

/** Names of the placeholders a template uses, in order of first use. */
export function templatePlaceholders(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(PLACEHOLDER_PATTERN)) {
    if (match[2] !== undefined) names.add(match[2]);
  }
  return [...names];
}

/**
 * Fills every `{name}` in `template` from `values` in one pass, so text inside a value (a tool
 * description, a web page) is never itself treated as a placeholder.
 * @throws PromptError when the template uses a name with no value, or a value is given that the
 * template never uses (a template that forgot `{feedback}` would silently make retries blind).
 */
export function renderPrompt(template: string, values: Record<string, string | number>, templateName = '(inline)'): string {
  const used = new Set(templatePlaceholders(template));
  for (const name of used) {
    if (!Object.hasOwn(values, name) || values[name] === undefined) {
      throw new PromptError(templateName, `placeholder {${name}} has no value (known: ${Object.keys(values).join(', ') || 'none'})`, name);
    }
  }
  for (const name of Object.keys(values)) {
    if (!used.has(name)) throw new PromptError(templateName, `the template has no {${name}} placeholder, but a value was given for it`, name);
  }
  return template.replace(PLACEHOLDER_PATTERN, (_whole, escaped: string | undefined, name: string | undefined) =>
    escaped !== undefined ? `{${escaped}}` : String(values[name!]),
  );
}

/** Template files kept, by path: the prompts folder holds a handful; this only bounds a strange caller. */
const MAX_TEMPLATES_KEPT = 64;
/** Each template's text as last read, with the version of the file it was read from. */
const templates = new KeptByVersion<string>(MAX_TEMPLATES_KEPT);

/**
 * Reads a template file, e.g. loadPrompt('perception.txt'). Checked on every call so edits to prompts/ take effect
 * on the next question without restarting the REPL; read again only when the file changed (another inode, size or
 * modification time). Synchronous on purpose: a stat of a small local file is microseconds, where the awaited
 * open, stat, read and close each waited on the thread pool, three times a question.
 * @throws PromptError when the file cannot be read.
 */
export async function loadPrompt(fileName: string, promptsDir: string = DEFAULT_PROMPTS_DIR): Promise<string> {
  const path = join(promptsDir, fileName);
  try {
    const version = fileVersion(statSync(path, { bigint: true }));
    const kept = templates.get(path, version);
    if (kept !== undefined) return kept;
    const text = readFileSync(path, 'utf8');
    templates.set(path, version, text);
    return text;
  } catch (err) {
    throw new PromptError(fileName, `cannot be read from ${promptsDir}: ${(err as Error).message}`, undefined, { cause: err });
  }
}

/** Loads a template and renders it; errors name the file. */
export async function renderPromptFile(
  fileName: string,
  values: Record<string, string | number>,
  promptsDir: string = DEFAULT_PROMPTS_DIR,
): Promise<string> {
  return renderPrompt(await loadPrompt(fileName, promptsDir), values, fileName);
}
