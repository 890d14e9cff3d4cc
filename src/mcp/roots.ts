// Which folders each server is offered through roots/list: its own configured directories win over the profile's roots.
import { statSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ServerSpec } from '../config/server-spec.js';

/** A folder offered to servers through roots/list. */
export interface RootFolder {
  uri: string;
  name: string;
  /** The folder's path on this machine (not sent; shown by `cortex servers`). */
  path: string;
}

/** Arguments looked at for directories; a server command line longer than this is not scanned past it. */
const MAX_ARGS_SCANNED = 200;

/**
 * The roots offered to `spec`. A stdio server whose arguments name existing directories (server-filesystem's
 * `/tmp`, a git server's `--repository DIR`) is offered exactly those: servers such as server-filesystem replace
 * their allowed directories with the roots a client offers, so offering the profile's folders would take away
 * the ones the user configured (and grant others). Every other server gets the profile's roots.
 */
export function rootsFor(spec: ServerSpec, profileRoots: readonly string[]): RootFolder[] {
  const own = spec.transport === 'http' || spec.transport === 'sse' ? [] : configuredDirectories(spec);
  return (own.length > 0 ? own : [...profileRoots]).map(rootFolder);
}

/** Existing directories named by a server's arguments (`DIR`, or `--flag=DIR`), resolved against its cwd, in order, once each. */
export function configuredDirectories(spec: Pick<ServerSpec, 'args' | 'cwd'>): string[] {
  const found: string[] = [];
  for (const arg of spec.args.slice(0, MAX_ARGS_SCANNED)) {
    const value = arg.startsWith('-') ? arg.slice(arg.indexOf('=') + 1 || arg.length) : arg;
    if (!value || !looksLikePath(value)) continue;
    const path = isAbsolute(value) ? value : resolve(spec.cwd, value);
    if (!found.includes(path) && isDirectory(path)) found.push(path);
  }
  return found;
}

function rootFolder(path: string): RootFolder {
  return { uri: pathToFileURL(path).href, name: basename(path) || path, path };
}

/** A scoped package name (`@scope/pkg`) is not taken for a folder even if one of that name exists. */
function looksLikePath(value: string): boolean {
  return !value.startsWith('@');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
