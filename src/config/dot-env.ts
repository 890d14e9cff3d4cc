// Reads a .env file in the working folder into the environment at start-up, never overriding a variable already set.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as util from 'node:util';
import { ConfigError } from '../errors.js';

/** Largest .env read (64 KiB): a file of keys and URLs is a few hundred bytes; anything larger is not one. */
export const DOT_ENV_MAX_BYTES = 64 * 1024;
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What was read: the file and the names it set (never the values). */
export interface DotEnvLoaded {
  file: string;
  /** Variables set from the file. */
  set: string[];
  /** Variables the file names that the environment already had (the environment wins). */
  kept: string[];
}

/**
 * Reads `<dir>/.env` (KEY=value lines, # comments, quoted values; node:util parseEnv) into `env`, leaving every
 * variable already set as it is. Returns undefined when there is no .env.
 * @throws ConfigError naming the file and line for a line that is not KEY=value, or a file too large.
 */
export function loadDotEnv({ dir = process.cwd(), env = process.env }: { dir?: string; env?: NodeJS.ProcessEnv } = {}): DotEnvLoaded | undefined {
  const file = join(dir, '.env');
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return undefined;
    size = stat.size;
  } catch {
    return undefined;
  }
  if (size > DOT_ENV_MAX_BYTES) throw new ConfigError(file, '', `is ${size} bytes; a .env of KEY=value lines is at most ${DOT_ENV_MAX_BYTES}`);
  const text = readFileSync(file, 'utf8');
  checkLines(text, file);
  const parseEnv = (util as { parseEnv?: (content: string) => Record<string, string> }).parseEnv;
  if (!parseEnv) throw new ConfigError(file, '', 'reading .env needs Node.js 20.12 or later');
  const values = parseEnv(text);
  const set: string[] = [];
  const kept: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (env[name] !== undefined) kept.push(name);
    else {
      env[name] = value;
      set.push(name);
    }
  }
  return { file, set, kept };
}

/** Each line is blank, a comment, or NAME=… (optionally after `export `); a multi-line quoted value's inner lines are skipped. */
function checkLines(text: string, file: string): void {
  let quote: string | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (quote) {
      if (line.endsWith(quote)) quote = undefined;
      return;
    }
    if (line === '' || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    const name = (eq < 0 ? line : line.slice(0, eq)).replace(/^export\s+/, '').trim();
    if (eq < 0 || !NAME_RE.test(name)) {
      throw new ConfigError(file, name.slice(0, 40), 'expected NAME=value (a variable name of letters, digits and _)', { line: i + 1 });
    }
    const value = line.slice(eq + 1).trim();
    const open = value[0];
    if ((open === '"' || open === "'" || open === '`') && (value.length === 1 || !value.endsWith(open))) quote = open;
  });
}
