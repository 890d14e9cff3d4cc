// Conversations that continue: a follow-up with -c reads the earlier answers in full, and a session that outgrows its
// budget has its older turns summarised by the model, kept in the session and shown by `cortex sessions show`.
import { afterEach, describe, expect, it } from 'vitest';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, isPerception, ollamaEnv, PERCEPTION_JSON, promptOf, tempProject } from './ask-harness.js';

let llm: FakeLlmServer | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

/** A long answer naming its code word, so a clipped summary would lose the end. */
const answerFor = (word: string) => `${'The notes say many things. '.repeat(20)}The code word is ${word}.`;
const SUMMARY = 'Earlier the person stored the code words ALPHA and BRAVO.';

describe('a conversation over several questions', () => {
  it('gives a follow-up the earlier answers in full, and folds the oldest into a kept summary when they outgrow the budget', async () => {
    const planPrompts: string[] = [];
    llm = await startFakeOllamaServer({
      replies: (req) => {
        if (req.path !== '/api/chat') return undefined;
        const prompt = promptOf(req);
        if (prompt.startsWith('You keep the memory of a conversation')) return ollamaChatReply(SUMMARY);
        if (isPerception(req)) return ollamaChatReply(PERCEPTION_JSON);
        planPrompts.push(prompt);
        const word = /code word (\w+)/.exec(prompt.split('## The task').pop() ?? '')?.[1] ?? 'NONE';
        return ollamaChatReply(fenced(`async function solve() { return ${JSON.stringify(`FINAL_ANSWER: ${answerFor(word)}`)}; }`));
      },
    });
    const { profile } = tempProject({ extra: 'memory:\n  conversation_chars: 1000\n' });
    const env = ollamaEnv(llm.url);
    const ask = async (question: string, more: string[] = []) => resultOf(await runCli(['--profile', profile, '--json', 'ask', ...more, question], { env }));

    const first = await ask('Store the code word ALPHA');
    await ask('Store the code word BRAVO', ['-c']);
    // The follow-up's plan request held the first answer whole, not a clipped line.
    expect(planPrompts.at(-1)).toContain(answerFor('ALPHA'));
    await ask('Store the code word CHARLIE', ['-c']);
    // Past 1,000 characters the oldest turn was summarised; the newest stays in full.
    const last = planPrompts.at(-1)!;
    expect(last).toContain(`Summary of the earlier conversation:\n${SUMMARY}`);
    expect(last).not.toContain(answerFor('ALPHA'));

    const shown = await runCli(['--profile', profile, 'sessions', 'show', first.session_id], { env });
    expect(shown.stdout).toContain('Summary of question 1, which later questions see instead of it:');
    expect(shown.stdout).toContain(SUMMARY);
  }, 120_000);
});
