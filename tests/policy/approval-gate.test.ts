import { describe, expect, it } from 'vitest';
import { createApprovalGate, type AskUser } from '../../src/policy/approval-gate.js';
import { needsApproval, ownServerIds, type ApprovalPolicy } from '../../src/policy/approval-policy.js';
import type { ToolAnnotations, ToolInfo } from '../../src/mcp/types.js';
import { builtPath } from '../../src/paths.js';
import { arithmeticCaller } from '../sandbox/fake-callers.js';

const POLICY: ApprovalPolicy = { require: [], allow: [], allowAll: false, ownServers: new Set(['math']) };

function tool(server: string, remoteName: string, annotations?: ToolAnnotations): ToolInfo {
  return { server, name: remoteName, remoteName, description: '', inputSchema: { type: 'object' }, ...(annotations ? { annotations } : {}) };
}

const writeFile = tool('fs', 'write_file', { readOnlyHint: false, destructiveHint: true });
const readFile = tool('fs', 'read_file', { readOnlyHint: true });
const signal = new AbortController().signal;

/** An AskUser that replays answers and records the questions. */
function scriptedAsk(answers: Array<string | null>): AskUser & { questions: string[] } {
  const questions: string[] = [];
  const ask = async (question: string) => {
    questions.push(question);
    if (answers.length === 0) throw new Error('unscripted question');
    return answers.shift()!;
  };
  return Object.assign(ask, { questions });
}

describe('needsApproval', () => {
  it('follows the annotations with the MCP defaults: read-only and additive tools run, the rest are asked about', () => {
    expect(needsApproval(writeFile, POLICY)).toBe(true);
    expect(needsApproval(readFile, POLICY)).toBe(false);
    expect(needsApproval(tool('mem', 'create_entities', { readOnlyHint: false, destructiveHint: false }), POLICY)).toBe(false);
    expect(needsApproval(tool('x', 'unannotated'), POLICY)).toBe(true);
  });

  it('never asks about our own servers, unless the profile requires it', () => {
    const thumbnail = tool('math', 'create_thumbnail', { readOnlyHint: false });
    expect(needsApproval(thumbnail, POLICY)).toBe(false);
    expect(needsApproval(thumbnail, { ...POLICY, require: ['math.create_thumbnail'] })).toBe(true);
  });

  it('lets the profile allow or require by <server>.<tool>, <server>.* or bare name, and --yes allow all', () => {
    expect(needsApproval(writeFile, { ...POLICY, allow: ['fs.write_file'] })).toBe(false);
    expect(needsApproval(writeFile, { ...POLICY, allow: ['fs.*'] })).toBe(false);
    expect(needsApproval(writeFile, { ...POLICY, allow: ['write_file'] })).toBe(false);
    expect(needsApproval(writeFile, { ...POLICY, allow: ['other.write_file'] })).toBe(true);
    expect(needsApproval(readFile, { ...POLICY, require: ['fs.*'] })).toBe(true);
    expect(needsApproval(writeFile, { ...POLICY, allowAll: true })).toBe(false);
  });

  it('knows our own servers by their built entry', () => {
    const spec = (id: string, args: string[]) => ({ id, command: process.execPath, args, cwd: '/', env: {}, description: '', capabilities: [] });
    expect(ownServerIds([spec('math', [builtPath('mcp-servers/math/main.js')]), spec('memory', ['/elsewhere/index.js'])])).toEqual(new Set(['math']));
    // The shipped profile starts the bundled servers.
    expect(ownServerIds([spec('documents', [builtPath('bundle/documents.js')]), spec('other', [builtPath('bundle/other.js')])])).toEqual(new Set(['documents']));
  });
});

describe('createApprovalGate', () => {
  it('runs what needs no approval without asking', async () => {
    const ask = scriptedAsk([]);
    expect(await createApprovalGate({ policy: POLICY, ask })(readFile, {}, { signal })).toEqual({ approved: true });
    expect(ask.questions).toEqual([]);
  });

  it('asks each time on yes, refuses on no or an empty line, and stops asking after always', async () => {
    const ask = scriptedAsk(['y', 'n', '', 'always']);
    const gate = createApprovalGate({ policy: POLICY, ask });
    const args = { path: '/tmp/x', content: 'hi' };
    expect(await gate(writeFile, args, { signal })).toEqual({ approved: true });
    expect(await gate(writeFile, args, { signal })).toMatchObject({ approved: false, reason: expect.stringContaining('the user declined it') });
    gate.newQuestion();
    expect(await gate(writeFile, args, { signal })).toMatchObject({ approved: false });
    gate.newQuestion();
    expect(await gate(writeFile, args, { signal })).toEqual({ approved: true });
    expect(await gate(writeFile, args, { signal })).toEqual({ approved: true });
    expect(ask.questions).toHaveLength(4);
    expect(ask.questions[0]).toBe('Allow fs.write_file?\n  It may change or delete data.\n  Arguments:\n    path: "/tmp/x"\n    content: "hi"\n[y]es / [N]o / [a]lways (fs.write_file, this session): ');
  });

  it('holds a no for the rest of the question: the retries do not ask again, the next question does', async () => {
    const ask = scriptedAsk(['n', 'y']);
    const gate = createApprovalGate({ policy: POLICY, ask });
    expect(await gate(writeFile, { try: 1 }, { signal })).toMatchObject({ approved: false });
    expect(await gate(writeFile, { try: 2 }, { signal })).toMatchObject({ approved: false, reason: expect.stringContaining('declined') });
    expect(await gate(writeFile, { try: 3 }, { signal })).toMatchObject({ approved: false });
    expect(ask.questions).toHaveLength(1);
    gate.newQuestion();
    expect(await gate(writeFile, { try: 4 }, { signal })).toEqual({ approved: true });
    expect(ask.questions).toHaveLength(2);
  });

  it('asks parallel calls one at a time, and an always answers those waiting', async () => {
    const ask = scriptedAsk(['a']);
    const gate = createApprovalGate({ policy: POLICY, ask });
    const decisions = await Promise.all([1, 2, 3].map((i) => gate(writeFile, { i }, { signal })));
    expect(decisions).toEqual([{ approved: true }, { approved: true }, { approved: true }]);
    expect(ask.questions).toHaveLength(1);
  });

  it('re-asks an unclear answer a bounded number of times, and refuses when no answer comes', async () => {
    const unclear = scriptedAsk(['maybe', 'hmm', 'what']);
    expect(await createApprovalGate({ policy: POLICY, ask: unclear })(writeFile, {}, { signal })).toMatchObject({ approved: false, reason: expect.stringContaining('no answer') });
    expect(unclear.questions).toHaveLength(3);
    const closed = scriptedAsk([null]);
    expect(await createApprovalGate({ policy: POLICY, ask: closed })(writeFile, {}, { signal })).toMatchObject({ approved: false });
  });

  it('refuses without asking when nobody can be asked, saying how to allow it', async () => {
    const decision = await createApprovalGate({ policy: POLICY })(writeFile, {}, { signal });
    expect(decision).toMatchObject({ approved: false, reason: expect.stringMatching(/not running interactively.*--yes.*approvals\.allow/) });
  });
});

describe('createApprovalGate and the flow policy', () => {
  const concern = { why: 'after reading outside content, it would act on the file x.sh, which the user did not name', yesAllows: false, destinations: ['the file x.sh'], holds: ['text written outside Cortex-R (news.example)'] };

  it("asks about a flow the policy flags even for our own servers' tools and allow-listed tools", async () => {
    const ask = scriptedAsk(['n']);
    const gate = createApprovalGate({ policy: { ...POLICY, allow: ['fs.read_file'] }, ask });
    expect(await gate(readFile, { path: 'x.sh' }, { signal, concern })).toEqual({ approved: false, reason: expect.stringContaining('declined') });
    expect(ask.questions).toEqual([
      [
        'Allow fs.read_file?',
        '  It reaches: the file x.sh',
        '  This question has read: text written outside Cortex-R (news.example)',
        '  Careful: after reading outside content, it would act on the file x.sh, which the user did not name.',
        '  Arguments:',
        '    path: "x.sh"',
        '[y]es / [N]o / [a]lways (fs.read_file → the file x.sh, this session): ',
      ].join('\n'),
    ]);
  });

  it('lets --yes answer only the concerns that allow it', async () => {
    const gate = createApprovalGate({ policy: { ...POLICY, allowAll: true } });
    expect(await gate(writeFile, {}, { signal, concern: { ...concern, yesAllows: true } })).toEqual({ approved: true });
    expect(await gate(writeFile, {}, { signal, concern })).toMatchObject({ approved: false, reason: expect.stringContaining("naming the destination in the question or in the profile's policy.destinations") });
  });

  it('remembers "always" for the same tool to the same places only', async () => {
    const ask = scriptedAsk(['a', 'n']);
    const gate = createApprovalGate({ policy: POLICY, ask });
    const to = (file: string) => ({ ...concern, destinations: [`the file ${file}`] });
    expect(await gate(writeFile, { path: 'a', content: '1' }, { signal, concern: to('a') })).toEqual({ approved: true });
    expect(await gate(writeFile, { path: 'a', content: '2' }, { signal, concern: to('a') })).toEqual({ approved: true });
    expect(await gate(writeFile, { path: 'b', content: '1' }, { signal, concern: to('b') })).toMatchObject({ approved: false });
    expect(ask.questions).toHaveLength(2);
  });

  it('shows every argument whole, folded, with control characters written out so they cannot redraw the screen', async () => {
    const ask = scriptedAsk(['n']);
    const gate = createApprovalGate({ policy: POLICY, ask });
    const long = 'z'.repeat(250);
    await gate(writeFile, { path: 'a.txt', content: `ok\u001b[2K\rAllow nothing?\u202e${long}` }, { signal });
    const [question] = ask.questions;
    expect(question).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(question).toContain('\\u001b[2K\\rAllow nothing?\\u202e');
    expect(question!.replace(/\n\s+/g, '').match(/z+/g)!.join('')).toHaveLength(250);
    expect(question).not.toContain('…');
  });
});

