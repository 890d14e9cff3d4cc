// Tools classed read / write / egress from their MCP annotations (ours included), with the profile's overrides.
import { describe, expect, it } from 'vitest';
import { buildDocumentsServer } from '../../mcp-servers/documents/build-server.js';
import { createLazyLibrary } from '../../mcp-servers/documents/lazy-library.js';
import { buildMathServer } from '../../mcp-servers/math/build-server.js';
import { buildWebsearchServer } from '../../mcp-servers/websearch/build-server.js';
import type { OwnServerKind } from '../../src/config/server-env.js';
import type { ToolInfo } from '../../src/mcp/types.js';
import type { WorkerExtractor } from '../../src/rag/extract/create-extractor.js';
import { classifyTool } from '../../src/policy/tool-class.js';
import { connectInMemory } from '../mcp-servers/connect-in-memory.js';

function tool(server: string, remoteName: string, annotations?: ToolInfo['annotations']): ToolInfo {
  return { server, name: remoteName, remoteName, description: '', inputSchema: { type: 'object' }, ...(annotations ? { annotations } : {}) };
}

const OURS = new Map<string, OwnServerKind>([['math', 'math'], ['documents', 'documents'], ['websearch', 'websearch']]);
const classify = (t: ToolInfo, overrides = {}) => classifyTool(t, { ownServers: OURS, overrides });

/** Our servers' tools as a client lists them (their real annotations). */
async function ownTools(): Promise<ToolInfo[]> {
  const library = createLazyLibrary(async () => {
    throw new Error('not used');
  });
  const servers = {
    math: buildMathServer(),
    websearch: buildWebsearchServer({}),
    documents: buildDocumentsServer({ library, extractor: {} as WorkerExtractor, documentsDir: '/nonexistent', extractUrl: async () => { throw new Error('not used'); } }),
  };
  const tools: ToolInfo[] = [];
  for (const [server, built] of Object.entries(servers)) {
    const connection = await connectInMemory(built);
    const { tools: listed } = await connection.client.listTools();
    for (const t of listed) tools.push({ ...tool(server, t.name), ...(t.annotations ? { annotations: t.annotations } : {}) });
    await connection.close();
  }
  return tools;
}

describe('classifyTool', () => {
  it("classes our own servers' tools from their annotations: web tools are egress, thumbnails write, the rest read", async () => {
    const classes = Object.fromEntries((await ownTools()).map((t) => [`${t.server}.${t.remoteName}`, classify(t).kind]));
    expect(classes).toMatchObject({
      'math.add': 'read',
      'math.strings_to_chars_to_int': 'read',
      'math.create_thumbnail': 'write',
      'documents.search_stored_documents': 'read',
      'documents.extract_pdf': 'read',
      'documents.convert_webpage_url_into_markdown': 'egress',
      'websearch.duckduckgo_search_results': 'egress',
      'websearch.download_raw_html_from_url': 'egress',
    });
    expect(Object.values(classes).filter((k) => k === 'egress')).toHaveLength(3);
  });

  it('labels what our tools return: documents are private and untrusted, web pages untrusted, math neither', () => {
    expect(classify(tool('documents', 'search_stored_documents', { readOnlyHint: true, openWorldHint: false })).returns).toEqual({ untrusted: true, private: true });
    expect(classify(tool('websearch', 'download_raw_html_from_url', { readOnlyHint: true, openWorldHint: true })).returns).toEqual({ untrusted: true, private: false });
    expect(classify(tool('math', 'add', { readOnlyHint: true, openWorldHint: false })).returns).toEqual({ untrusted: false, private: false });
  });

  it("treats a third-party tool that says nothing as the spec's defaults: it writes, reaches the world, and returns untrusted private data", () => {
    expect(classify(tool('other', 'do_it'))).toEqual({ kind: 'egress', writes: true, returns: { untrusted: true, private: true }, unclassified: true });
    // Annotations say what a call does, never whether its results can be believed.
    expect(classify(tool('fs', 'read_file', { readOnlyHint: true, openWorldHint: false }))).toEqual({ kind: 'read', writes: false, destroys: false, returns: { untrusted: true, private: true } });
    expect(classify(tool('fs', 'write_file', { readOnlyHint: false, openWorldHint: false })).kind).toBe('write');
  });

  it('classes the tools of known servers by package, so a local read is a read and a push is egress', () => {
    const knownServers = new Map([['fs', 'filesystem'], ['repo', 'git'], ['db', 'sqlite'], ['clock', 'time'], ['web', 'browser'], ['gh', 'github']] as const);
    const known = (server: string, name: string) => classifyTool(tool(server, name), { ownServers: OURS, knownServers, overrides: {} });
    expect(known('fs', 'read_text_file')).toMatchObject({ kind: 'read', returns: { untrusted: true, private: true } });
    expect(known('fs', 'write_file')).toMatchObject({ kind: 'write', writes: true });
    expect(known('repo', 'git_log').kind).toBe('read');
    expect(known('repo', 'git_commit').kind).toBe('write');
    expect(known('repo', 'git_push')).toMatchObject({ kind: 'egress', writes: true });
    expect(known('db', 'read_query').kind).toBe('read');
    expect(known('db', 'write_query').kind).toBe('write');
    expect(known('clock', 'get_current_time')).toMatchObject({ kind: 'read', returns: { private: false } });
    expect(known('web', 'browser_navigate')).toMatchObject({ kind: 'egress', writes: false });
    expect(known('web', 'browser_snapshot').kind).toBe('read');
    expect(known('web', 'browser_type')).toMatchObject({ kind: 'egress', writes: true });
    expect(known('gh', 'search_issues')).toMatchObject({ kind: 'egress', reaches: 'github.com' });
    // A tool the table does not name is classed from its annotations, like anyone else's.
    expect(known('fs', 'new_tool').unclassified).toBe(true);
  });

  it("trusts a tool's results only when the user said so (cortex servers trust)", () => {
    const trusted = classifyTool(tool('mine', 'lookup', { readOnlyHint: true, openWorldHint: false }), { ownServers: OURS, overrides: {}, trusted: ['mine.*'] });
    expect(trusted.returns).toEqual({ untrusted: false, private: true });
    expect(classifyTool(tool('mine', 'undeclared'), { ownServers: OURS, overrides: {}, trusted: ['mine.undeclared'] })).toMatchObject({ kind: 'read', returns: { untrusted: false } });
  });

  it("lets the profile override a tool's class and labels, by full name, server or bare name", () => {
    expect(classify(tool('fs', 'read_file', { readOnlyHint: true, openWorldHint: false }), { 'fs.read_file': { returns: ['untrusted', 'private'] } }).returns).toEqual({ untrusted: true, private: true });
    expect(classify(tool('other', 'do_it'), { 'other.*': { class: 'read', returns: [] } })).toEqual({ kind: 'read', writes: false, returns: { untrusted: false, private: false } });
    expect(classify(tool('math', 'add', { readOnlyHint: true, openWorldHint: false }), { add: { class: 'egress' } })).toMatchObject({ kind: 'egress', writes: false });
  });
});
