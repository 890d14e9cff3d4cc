// What a person reads after a question, through the built CLI: the answer's markdown whole, a plain give-up, failed
// questions saved and counted, one session line and date format, tool lines as the code wrote them, no spinner in logs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, ollamaEnv, planningOllama, promptOf, tempProject } from './ask-harness.js';

const SPINNER_FRAME = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
/** A session line's local start time: the one date format of sessions. */
const LOCAL_TIME = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}/;
/** A port nothing listens on. */
const NO_LLM = 'http://127.0.0.1:9';

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A models file whose Ollama entry retries `retries` times. */
function modelsWithRetries(root: string, retries: number): string {
  const file = join(root, 'models.yaml');
  writeFileSync(file, `models:\n  ollama:\n    type: ollama\n    model: qwen2.5-coder:7b\n    max_retries: ${retries}\n`);
  return file;
}

/** A model that answers "ok" questions, fails "impossible" ones in its code, and whose server breaks on "crash" ones. */
function moodyModel() {
  return planningOllama((req) => {
    const prompt = promptOf(req);
    if (prompt.includes('crash please')) return { status: 500, body: { error: 'model runner crashed' } };
    if (prompt.includes('impossible please')) return ollamaChatReply(fenced('async function solve() { throw new Error("nope"); }'));
    return ollamaChatReply(fenced('async function solve() { return "FINAL_ANSWER: ok " + await tools.add(20, 22); }'));
  });
}

describe('what a person reads after a question (built CLI)', () => {
  it('prints an answer whose first line ends in bold with its code span whole', async () => {
    server = await planningOllama(() => ollamaChatReply('Checked the scripts.\nFINAL_ANSWER: **Use `npm test`**\nthen `npm run build`.'));
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, 'ask', 'How do I run the tests?'], { env: ollamaEnv(server.url) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('**Use `npm test`**\nthen `npm run build`.');
  });

  it('gives up in plain words: the question, what went wrong last, each try and what to try next', async () => {
    server = await moodyModel();
    const { profile } = tempProject();
    const run = await runCli(['--profile', profile, 'ask', 'impossible please'], { env: ollamaEnv(server.url) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Gave up: No answer to "impossible please": step 1 failed on all 3 tries, with no retries left.');
    expect(run.stderr).toContain('What went wrong last: The code failed: Error: nope');
    expect(run.stderr).toContain('- step 1, try 3 (no tool calls): The code failed: Error: nope');
    expect(run.stderr).toMatch(/^To try: ask again in other words .*larger model \(--model\)\.$/m);
    expect(run.stderr).toMatch(/^step 1 of 3: planning \(no retries left\)$/m);
    expect(run.stderr).not.toMatch(/lifeline|FINAL_ANSWER|solve\(\)|retrying/);
  });

  it('saves a question the model failed on with the reason, says the last retry is the last, and draws no spinner off a terminal', async () => {
    server = await moodyModel();
    const project = tempProject();
    const env = ollamaEnv(server.url);
    const run = await runCli(['--profile', project.profile, '--models', modelsWithRetries(project.root, 1), 'ask', 'crash please'], { env });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^the model's request failed \(HTTP 500\); one last try in \d+ s \(no retries left\)$/m);
    expect(run.stderr).not.toMatch(SPINNER_FRAME);

    const list = await runCli(['--profile', project.profile, 'sessions'], { env });
    const [line, ...others] = list.stdout.trim().split('\n');
    expect(others).toEqual([]);
    expect(line).toMatch(LOCAL_TIME);
    expect(line).toMatch(/1 question\s+failed\s+crash please \(.*HTTP 500.*\)$/);
    const id = line!.split(' ')[0]!;
    const json = JSON.parse((await runCli(['--profile', project.profile, '--json', 'sessions'], { env })).stdout);
    expect(json[0]).toMatchObject({ id, last_outcome: 'failed', last_reason: expect.stringContaining('HTTP 500') });
    const show = await runCli(['--profile', project.profile, 'sessions', 'show', id], { env });
    expect(show.stdout).toMatch(new RegExp(`^Session ${id}, started ${LOCAL_TIME.source} `, 'm'));
    expect(show.stdout).toMatch(/^Failed: .*HTTP 500/m);
  });

  it('saves a question asked of a model that nothing answers for, as failed with the reason', async () => {
    const { profile } = tempProject();
    const env = ollamaEnv(NO_LLM);
    const run = await runCli(['--profile', profile, '--model', 'ollama:qwen2.5-coder:7b', 'ask', 'anyone there?'], { env });
    expect(run.code).not.toBe(0);
    const json = JSON.parse((await runCli(['--profile', profile, '--json', 'sessions'], { env })).stdout);
    expect(json).toHaveLength(1);
    expect(json[0]).toMatchObject({ first_query: 'anyone there?', question_count: 1, last_outcome: 'failed', last_reason: expect.stringContaining('127.0.0.1:9') });
  });

  it('counts answered, gave up and failed questions in /stats, lists the session with the same date format, one line each', async () => {
    server = await moodyModel();
    const project = tempProject();
    const input = 'ok please\nimpossible please\ncrash please\n/stats\n/sessions\n/exit\n';
    const run = await runCli(['--profile', project.profile, '--models', modelsWithRetries(project.root, 0)], { env: ollamaEnv(server.url), input });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/3 questions \(1 answered, 1 gave up, 1 failed, 0 cancelled\)/);
    // The tool line shows the call as the code wrote it, not the arguments named for the server.
    expect(run.stderr).toMatch(/^ {2}✓ add\(20,22\) \d+ ms$/m);
    expect(run.stderr).not.toMatch(SPINNER_FRAME);
    const sessionLines = run.stderr.split('\n').filter((l) => /^session-|^\d{9,}-/.test(l) || LOCAL_TIME.test(l));
    expect(sessionLines).toHaveLength(1);
    expect(sessionLines[0]).toMatch(new RegExp(`${LOCAL_TIME.source}  3 questions\\s+failed\\s+ok please · last question: .*HTTP 500.*$`));
  });
});
