// Where the project lives on disk, so code run from src/ (tests) or dist/ (built) finds the same files.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findProjectRoot(start: string): string {
  let dir = start;
  // Bounded by the filesystem depth: dirname() of the root is the root.
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}

/** The folder holding Cortex-R's package.json. */
export const PROJECT_ROOT = findProjectRoot(dirname(fileURLToPath(import.meta.url)));

/** Absolute path of a built JavaScript file, e.g. builtPath('mcp-servers/math/main.js'). */
export function builtPath(relative: string): string {
  return join(PROJECT_ROOT, 'dist', relative);
}

/** The user's own Cortex-R folder: $XDG_CONFIG_HOME/cortex-r, else ~/.config/cortex-r (e.g. for a user-level AGENTS.md). */
export function userConfigDir(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  return join(env.XDG_CONFIG_HOME?.trim() || join(home, '.config'), 'cortex-r');
}
