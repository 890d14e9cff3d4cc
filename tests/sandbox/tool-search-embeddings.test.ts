// Tool search with an embedding model: fused with the word ranking, tool vectors kept per catalogue, words alone when the model fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedLlm } from '../helpers/scripted-llm.js';
import { openEmbedder } from '../../src/rag/embed/open-embedder.js';
import { embeddingFromEnv } from '../../src/rag/indexer-settings.js';
import type { Embedder } from '../../src/rag/embed/embedder.js';
import { createLexicalEmbedder } from '../../src/rag/embed/lexical-embedder.js';
import { createLlmEmbedder } from '../../src/rag/embed/llm-embedder.js';
import { createSandbox } from '../../src/sandbox/create-sandbox.js';
import { lookUpTools, searchTools, searchToolsWith } from '../../src/sandbox/tool-search.js';
import { ToolProxy } from '../../src/sandbox/tool-proxy.js';
import { type FakeLlmServer, type RecordedRequest, startFakeOllamaServer } from '../helpers/fake-ollama-server.js';
import { TEST_LIMITS } from './contain.js';
import { arithmeticCaller } from './fake-callers.js';
import { realTools } from './tool-search-sets.js';
import { runEndsIn } from '../helpers/run-ends-in.js';

/** A toy model of meaning: one dimension per group of words that mean one thing, plus one for everything else. */
const MEANINGS = [
  ['me', 'myself', 'whoami', 'profile', 'account', 'logged', 'login', 'authenticated', 'identity'],
  ['web', 'browser', 'page', 'site', 'url', 'navigate', 'visit'],
  ['sum', 'add', 'plus', 'total', 'numbers'],
];
function toyVector(text: string): number[] {
  const words = text.toLowerCase().split(/[^a-z]+/);
  return [...MEANINGS.map((group) => words.filter((w) => group.includes(w)).length), 0.1];
}

const QUESTION = 'who am I logged in as on GitHub';
const names = (hits: Array<{ server: string; name: string }>) => hits.map((h) => `${h.server}.${h.name}`);

let ollama: FakeLlmServer;
let model: Embedder;
/** Texts the model was asked to embed, request by request. */
const embedded = () => ollama.requests.filter((r: RecordedRequest) => r.path === '/api/embed').map((r) => r.body.input as string[]);

beforeAll(async () => {
  ollama = await startFakeOllamaServer({
    replies: (request: RecordedRequest) =>
      request.path === '/api/embed' ? { body: { model: request.body.model, embeddings: (request.body.input as string[]).map(toyVector) } } : undefined,
  });
  model = await openEmbedder(embeddingFromEnv('ollama:nomic-embed-text'), { OLLAMA_HOST: ollama.url });
});
afterAll(async () => {
  await ollama.close();
});

describe('searchToolsWith an embedding model', () => {
  it('finds through the model a tool the words alone miss, among 525 real tools', async () => {
    expect(names(searchTools(realTools, QUESTION, 5))).not.toContain('github.get_me');
    expect(names(await searchToolsWith(model, realTools, QUESTION, 5))).toContain('github.get_me');
  });

  it('embeds a catalogue once: later searches of it send the model only the question', async () => {
    const catalogue = realTools.slice(0, 200);
    const before = embedded().length;
    await searchToolsWith(model, catalogue, 'open a web page in the browser', 5);
    const first = embedded().slice(before).flat();
    expect(first).toHaveLength(201);
    await searchToolsWith(model, catalogue, 'add two numbers', 5);
    // nomic-embed-text is sent its query prefix.
    expect(embedded().slice(before).flat().slice(201)).toEqual(['search_query: add two numbers']);
  });

  it('answers with the word ranking when the model fails', async () => {
    const broken = await createLlmEmbedder({ llm: new ScriptedLlm(), id: 'scripted:broken', dimension: 4 });
    expect(await searchToolsWith(broken, realTools, QUESTION, 5)).toEqual(searchTools(realTools, QUESTION, 5));
    expect(await searchToolsWith(broken, realTools, 'add two numbers', 5)).toEqual(searchTools(realTools, 'add two numbers', 5));
  });

  it('leaves the built-in lexical embedder out: its ranking is the words alone', async () => {
    expect(await searchToolsWith(createLexicalEmbedder(), realTools, QUESTION, 5)).toEqual(searchTools(realTools, QUESTION, 5));
  });

  it("answers the sandbox's mcp.search_tools with the fused ranking when the run has the profile's model", async () => {
    const reply = JSON.parse(await lookUpTools(realTools, QUESTION, '[5]', 'search', model)) as { ok: boolean; value: Array<{ server: string; name: string }> };
    expect(reply.ok).toBe(true);
    expect(names(reply.value)).toContain('github.get_me');
    const proxy = new ToolProxy({ tools: realTools, caller: arithmeticCaller(), maxToolCalls: 1, remainingMs: runEndsIn(60_000), signal: new AbortController().signal, toolEmbedder: model });
    const answer = JSON.parse(await proxy.handle(QUESTION, '[5]', 'search')) as { value: Array<{ server: string; name: string }> };
    expect(names(answer.value)).toContain('github.get_me');
    expect(proxy.calls).toEqual([]);
  });

  it('reaches solve() through the real sandbox: mcp.search_tools answers with the fused ranking', async () => {
    const sandbox = createSandbox();
    try {
      const code = `async function solve() {
        const hits = await mcp.search_tools(${JSON.stringify(QUESTION)}, 5);
        return "FINAL_ANSWER: " + hits.map((h) => h.server + "." + h.name).join(" ");
      }`;
      const result = await sandbox.run({ code, tools: realTools, caller: arithmeticCaller(), limits: { ...TEST_LIMITS, maxToolCalls: 1, timeoutMs: 15_000 }, toolEmbedder: model });
      expect(result).toMatchObject({ ok: true, calls: [] });
      expect(result.ok && result.value.split(' ')).toContain('github.get_me');
    } finally {
      await sandbox.close();
    }
  });
});
