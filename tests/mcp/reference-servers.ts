// Test helper: the MCP reference servers from npm (devDependencies, so no network) as server specs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerSpec } from '../../src/config/load-config.js';
import { PROJECT_ROOT } from '../../src/paths.js';

function entry(pkg: string): string {
  return join(PROJECT_ROOT, 'node_modules', '@modelcontextprotocol', pkg, 'dist', 'index.js');
}

function spec(id: string, args: string[], env: Record<string, string> = {}): ServerSpec {
  return { id, command: process.execPath, args, cwd: PROJECT_ROOT, env, description: `${id} (reference server)`, capabilities: [] };
}

/** server-memory under `id`, keeping its knowledge graph in a file of its own (returned as `file`). */
export function memoryServer(id: string): ServerSpec & { file: string } {
  const file = join(mkdtempSync(join(tmpdir(), `cortex-${id}-`)), 'memory.jsonl');
  return { ...spec(id, [entry('server-memory')], { MEMORY_FILE_PATH: file }), file };
}

/** server-everything over stdio: text, image, resource, structured, annotated and slow tools. */
export function everythingServer(id = 'everything'): ServerSpec {
  return spec(id, [entry('server-everything'), 'stdio']);
}

/** server-filesystem allowed into `dir` only. */
export function filesystemServer(dir: string, id = 'filesystem'): ServerSpec {
  return spec(id, [entry('server-filesystem'), dir]);
}
