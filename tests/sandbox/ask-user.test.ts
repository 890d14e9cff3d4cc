// ask_user() in the real sandbox: the host asks, the answer comes back as a string, onUserAnswer hears it; bad calls are refused.
import { describe, expect, it } from 'vitest';
import type { ProcessSandbox } from '../../src/sandbox/create-sandbox.js';
import { MAX_QUESTIONS_PER_PLAN } from '../../src/sandbox/ask-person.js';
import type { AskPerson, SandboxRunOptions } from '../../src/sandbox/types.js';
import { TEST_LIMITS } from './contain.js';
import { withMathSandbox, type MathServer } from './math-server.js';
import { runReply } from '../helpers/run-reply.js';

let math: MathServer;
let sandbox: ProcessSandbox;
withMathSandbox((started) => ({ math, sandbox } = started));

function run(code: string, extra: Partial<SandboxRunOptions> = {}) {
  return runReply(sandbox, { code, tools: math.tools, caller: math.caller, limits: TEST_LIMITS, ...extra });
}

describe('ask_user in the sandbox', () => {
  it('resolves to the answer, passes the choices, tells onUserAnswer, and does not count as a tool call', async () => {
    const asked: Array<{ question: string; choices?: string[] }> = [];
    const heard: Array<{ answer: string; choices?: readonly string[] }> = [];
    const askUser: AskPerson = async (question, { choices }) => {
      asked.push({ question, ...(choices ? { choices } : {}) });
      return 'Lyon';
    };
    const result = await run('async function solve() { const c = await ask_user("Which city?", { choices: ["Paris", "Lyon"] }); return "FINAL_ANSWER: " + c; }', {
      askUser,
      onUserAnswer: (answer, choices) => heard.push({ answer, ...(choices ? { choices } : {}) }),
      limits: { ...TEST_LIMITS, maxToolCalls: 1 },
    });
    expect(result).toMatchObject({ ok: true, value: 'FINAL_ANSWER: Lyon', calls: [] });
    expect(asked).toEqual([{ question: 'Which city?', choices: ['Paris', 'Lyon'] }]);
    expect(heard).toEqual([{ answer: 'Lyon', choices: ['Paris', 'Lyon'] }]);
  });

  it('rejects with advice for the model when nobody can answer, when the person gives none, and past the per-plan bound', async () => {
    const code = 'async function solve() { try { await ask_user("When?"); } catch (e) { return "FINAL_ANSWER: " + e.message; } }';
    expect(await run(code)).toMatchObject({ ok: true, value: expect.stringMatching(/^FINAL_ANSWER: ask_user could not ask: nobody is there to answer/) });
    expect(await run(code, { askUser: async () => null })).toMatchObject({ value: expect.stringMatching(/^FINAL_ANSWER: ask_user got no answer/) });
    const many = `async function solve() { try { for (let i = 0; i <= ${MAX_QUESTIONS_PER_PLAN}; i++) await ask_user("Again?"); } catch (e) { return "FINAL_ANSWER: " + e.message; } }`;
    expect(await run(many, { askUser: async () => 'yes' })).toMatchObject({ value: expect.stringContaining(`ask_user was called more than ${MAX_QUESTIONS_PER_PLAN} times`) });
    const badChoices = 'async function solve() { try { await ask_user("Which?", { choices: [1, 2] }); } catch (e) { return "FINAL_ANSWER: " + e.message; } }';
    expect(await run(badChoices, { askUser: async () => 'x' })).toMatchObject({ value: expect.stringContaining('choices must be a list of 1 to 20 non-empty strings') });
  });
});
