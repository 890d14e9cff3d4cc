// Plans cut off mid-code (output limit, unfinished block, broken stream) are continued and joined.
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/agent/decision.js';
import { MAX_CONTINUATIONS } from '../../src/agent/whole-reply.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { ScriptedLlm, type ScriptedTurn } from '../helpers/scripted-llm.js';
import type { LlmClient } from '../../src/llm/types.js';
import { createOllamaClient } from '../../src/llm/ollama-client.js';
import { readReply } from '../../src/reply/read-reply.js';
import { ollamaChatReply, ollamaChunk, startFakeOllamaServer } from '../helpers/fake-ollama-server.js';
import { fakeServers } from '../llm/llm-test-kit.js';
import { TOOLS } from './fakes.js';

const CUT = 'Here is the plan.\n```javascript\nasync function solve() {\n  const sum = await tools.add({ a: 2, b: 3 });\n  return "FINAL_AN';
const REST = 'SWER: " + sum;\n}\n```\n';

const fakeOllama = fakeServers(startFakeOllamaServer);

async function decideOn(llm: LlmClient) {
  const events: AgentEvent[] = [];
  const decision = await decide({
    llm,
    strategy: 'conservative',
    query: 'What is 2 + 3?',
    step: 1,
    maxSteps: 3,
    catalogue: TOOLS.slice(0, 2),
    memorySummary: '',
    perception: { intent: 'add', entities: [], tool_hint: 'add', fallback: false },
    events: { stage: 'decision', step: 1, emit: (e) => events.push(e) },
  });
  return { decision, events };
}

async function decideWith(turns: ScriptedTurn[]) {
  const llm = new ScriptedLlm({ turns, usage: { promptTokens: 100, completionTokens: 20 } });
  return { llm, ...(await decideOn(llm)) };
}

describe('decide with a reply cut off mid-code', () => {
  it('asks the model to go on when the provider says the output limit was hit, and runs the joined code', async () => {
    const { llm, decision, events } = await decideWith([{ text: CUT, hitOutputLimit: true }, REST]);
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[1]!.prompt).toContain(decision.prompt);
    expect(llm.requests[1]!.prompt).toContain(`----- REPLY START -----\n${CUT}\n----- REPLY END -----`);
    expect(llm.requests[1]!.prompt).toContain('Continue your reply from exactly where it stops');
    expect(decision.reply).toBe(CUT + REST);
    expect(decision.prepared).toMatchObject({ ok: true, code: expect.stringContaining('return "FINAL_ANSWER: " + sum') });
    // Both requests count, and each is shown as it streams.
    expect(decision.usage).toEqual({ promptTokens: 200, completionTokens: 40 });
    expect(events.filter((e) => e.type === 'llm_start')).toHaveLength(2);
  });

  it('goes on when the code block ends unfinished even if the provider gave no stop reason', async () => {
    const { llm, decision } = await decideWith([CUT, REST]);
    expect(llm.requests).toHaveLength(2);
    expect(decision.prepared.ok).toBe(true);
  });

  it('asks at most MAX_CONTINUATIONS times, then hands on what it has', async () => {
    const cut = { text: CUT, hitOutputLimit: true } as const;
    const more = { text: '\n  // still going', hitOutputLimit: true } as const;
    const { llm, decision } = await decideWith([cut, ...Array.from({ length: MAX_CONTINUATIONS + 2 }, () => more)]);
    expect(llm.requests).toHaveLength(1 + MAX_CONTINUATIONS);
    expect(decision.reply.startsWith(CUT)).toBe(true);
    expect(llm.remaining).toBe(2);
  });

  it('goes on from what arrived when the stream breaks off mid-reply (a real client against a server that cuts the connection)', async () => {
    const server = await fakeOllama({ replies: [{ frames: [ollamaChunk(CUT.slice(0, 40)), ollamaChunk(CUT.slice(40))], cutAfterFrames: true }, ollamaChatReply(REST)] });
    const client = createOllamaClient({ type: 'ollama', model: 'qwen2.5-coder:7b', base_url: server.url, timeout_ms: 10_000, max_retries: 2 }, {});
    const { decision, events } = await decideOn(client);
    expect(decision.reply).toBe(CUT + REST);
    expect(decision.prepared.ok).toBe(true);
    const chats = server.requests.filter((r) => r.path === '/api/chat');
    expect(chats).toHaveLength(2);
    expect(JSON.stringify(chats[1]!.body.messages)).toContain('REPLY START');
    // The break is shown as the first request's failure; the continuation is a request of its own.
    expect(events.filter((e) => e.type === 'llm_end').map((e) => 'error' in e && Boolean(e.error))).toEqual([true, false]);
  });

  it('does not ask again for a complete reply', async () => {
    const { llm } = await decideWith([CUT + REST]);
    expect(llm.requests).toHaveLength(1);
  });
});
