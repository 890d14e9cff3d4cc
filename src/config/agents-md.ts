// Standing instructions: the AGENTS.md files of the working folder up to its repository root, and the user's own.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { userConfigDir } from '../paths.js';

export const AGENTS_FILE_NAME = 'AGENTS.md';
/** Most folders walked up from the working folder looking for AGENTS.md (deeper trees stop here). */
export const MAX_AGENTS_PARENT_LEVELS = 20;
/** Most characters kept of one AGENTS.md: a page of rules; the rest is cut with a note. */
export const MAX_AGENTS_FILE_CHARS = 8_000;
/** Most characters of all standing instructions together, so they cannot crowd the tools out of the prompt. */
export const MAX_AGENTS_TOTAL_CHARS = 16_000;

/** One file read, and how much of it was kept. */
export interface AgentsFile {
  path: string;
  /** The text as kept (cut to the bounds above). */
  text: string;
  /** True when the file was longer than what was kept. */
  cut: boolean;
}

/** Bytes read of one file at most: enough for MAX_AGENTS_FILE_CHARS characters of any UTF-8 text. */
const MAX_AGENTS_READ_BYTES = 4 * MAX_AGENTS_FILE_CHARS;

/**
 * The AGENTS.md files that apply to `cwd`, most general first: the user's (userConfigDir()/AGENTS.md), then each
 * folder from the repository root (the nearest folder above `cwd` holding .git; without one, only `cwd` itself)
 * down to `cwd`, so the nearest file's rules come last. Unreadable files are skipped; each file and the total are
 * bounded (MAX_AGENTS_FILE_CHARS, MAX_AGENTS_TOTAL_CHARS). Never throws.
 */
export function findAgentsFiles({ cwd = process.cwd(), env = process.env, userDir = userConfigDir(env) }: { cwd?: string; env?: NodeJS.ProcessEnv; userDir?: string } = {}): AgentsFile[] {
  const folders = repositoryFolders(resolve(cwd));
  const paths = [join(userDir, AGENTS_FILE_NAME), ...folders.map((folder) => join(folder, AGENTS_FILE_NAME))];
  const files: AgentsFile[] = [];
  let budget = MAX_AGENTS_TOTAL_CHARS;
  for (const path of [...new Set(paths)]) {
    const read = readHead(path);
    if (read === undefined || read.text.trim() === '' || budget <= 0) continue;
    const limit = Math.min(MAX_AGENTS_FILE_CHARS, budget);
    const cut = read.more || read.text.length > limit;
    const kept = cut ? `${read.text.slice(0, limit).trim()}\n[the rest of this file was left out: standing instructions are kept under ${MAX_AGENTS_TOTAL_CHARS} characters]` : read.text.trim();
    budget -= Math.min(read.text.length, limit);
    files.push({ path, text: kept, cut });
  }
  return files;
}

/** The profile's `agent` and `persona` sections as an instruction to the planner: who it is and how it answers. */
export function personaInstructions({ agent, persona }: { agent: { name: string; description: string }; persona: { tone: string; verbosity: string; behavior_tags: string[] } }): string {
  const traits = persona.behavior_tags.length > 0 ? ` Be ${persona.behavior_tags.join(', ')}.` : '';
  const who = agent.description.trim() ? ` ${agent.description.trim()}` : '';
  return `You are ${agent.name}.${who} Write answers in a ${persona.tone} tone, with ${persona.verbosity} verbosity.${traits}`;
}

/** The standing instructions as one text for the model, each file under its path; '' when there are none. */
export function standingInstructions(files: AgentsFile[]): string {
  if (files.length === 0) return '';
  const sections = files.map((f) => `# From ${f.path}\n${f.text}`).join('\n\n');
  return (
    'Standing instructions from the user (AGENTS.md files; the nearest folder\'s come last and win where they differ). ' +
    'Follow them in the code you write and the answers you give, within the rules of the prompt.\n\n' +
    sections
  );
}

/** From the repository root (a folder with .git) down to `cwd`; just `cwd` when no folder above it has .git. */
function repositoryFolders(cwd: string): string[] {
  const chain: string[] = [];
  let dir = cwd;
  for (let level = 0; level <= MAX_AGENTS_PARENT_LEVELS; level++) {
    chain.push(dir);
    if (exists(join(dir, '.git'))) return chain.reverse();
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return [cwd];
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The first MAX_AGENTS_READ_BYTES of a regular file, and whether there is more; undefined when it cannot be read. */
function readHead(path: string): { text: string; more: boolean } | undefined {
  let fd: number | undefined;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return undefined;
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(Math.min(stat.size, MAX_AGENTS_READ_BYTES));
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return { text: buffer.subarray(0, length).toString('utf8'), more: stat.size > length };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
