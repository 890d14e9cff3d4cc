// The approval policy against the annotations real servers declare (server-filesystem, server-memory).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needsApproval } from '../../src/policy/approval-policy.js';
import { MultiMcp } from '../../src/mcp/multi-mcp.js';
import { filesystemServer, memoryServer } from './reference-servers.js';

let multi: MultiMcp;
beforeAll(async () => {
  multi = await MultiMcp.start([filesystemServer(mkdtempSync(join(tmpdir(), 'cortex-fs-'))), memoryServer('memory')]);
});
afterAll(() => multi?.close());

const POLICY = { require: [], allow: [], allowAll: false, ownServers: new Set<string>() };

describe('which reference-server tools need approval', () => {
  it('asks about the tools that write, move or delete, and none of those that read or only add', () => {
    const asked = multi.listTools().filter((t) => needsApproval(t, POLICY)).map((t) => `${t.server}.${t.remoteName}`).sort();
    expect(asked).toEqual([
      'filesystem.edit_file',
      'filesystem.move_file',
      'filesystem.write_file',
      'memory.delete_entities',
      'memory.delete_observations',
      'memory.delete_relations',
    ]);
    expect(multi.listTools(['filesystem']).find((t) => t.remoteName === 'read_text_file')?.annotations).toMatchObject({ readOnlyHint: true });
  });
});
