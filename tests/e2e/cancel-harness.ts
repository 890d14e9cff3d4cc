// Shared by the cancel tests of `cortex serve` and `cortex mcp`: a real MCP server that records its calls, and plans
// that hold at a gate the test opens.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
import { ollamaChatReply, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { fenced, tempProject } from './ask-harness.js';
import { startPlanningLlm } from './serve-harness.js';

const RECORDER = join(PROJECT_ROOT, 'tests', 'fixtures', 'recorder-server.mjs');
const PERCEPTION = JSON.stringify({ intent: 'record', entities: [], tool_hint: 'note', selected_servers: ['recorder'] });
/** Held at its gate until the test releases it; after the gate it notes again and answers. */
const GATED_PLAN = (tag: string) =>
  `async function solve() { await tools.note({ text: "${tag} before" }); await tools.gate({ tag: "${tag}" }); await tools.note({ text: "${tag} after the gate" }); return "FINAL_ANSWER: passed"; }`;
const NOTE_PLAN = (tag: string) => `async function solve() { await tools.note({ text: "${tag}" }); return "FINAL_ANSWER: noted"; }`;

/** A fake LLM planning `GATE-<tag>` questions as GATED_PLAN and `NOTE-<tag>` ones as NOTE_PLAN, on the recorder. */
export function startGateLlm(): Promise<FakeLlmServer> {
  return startPlanningLlm((prompt, stage) => {
    if (stage === 'perception') return ollamaChatReply(PERCEPTION);
    const gated = /GATE-\w+/.exec(prompt)?.[0];
    if (gated) return ollamaChatReply(fenced(GATED_PLAN(gated)));
    const note = /NOTE-\w+/.exec(prompt)?.[0];
    return ollamaChatReply(fenced(NOTE_PLAN(note ?? 'unexpected')));
  });
}

/** A temp project whose only server is the recorder, logging to `calls`; `extra` is more profile YAML. */
export function recorderProject(extra = '') {
  const project = tempProject({
    // Only a cancel can end a held plan: its deadline and its call's own timeout are far off.
    sandbox: { timeout_ms: 600_000, tool_timeout_ms: 300_000 },
    extra,
    servers: `  - id: recorder\n    script: ${RECORDER}\n    args: [CALL_LOG]\n    description: records calls\n`,
  });
  const callLog = join(project.root, 'calls.log');
  // The profile names the log by a placeholder; point it at this project's file.
  writeFileSync(project.profile, readFileSync(project.profile, 'utf8').replace('CALL_LOG', JSON.stringify(callLog)));
  return {
    ...project,
    /** The calls the recorder received so far, in order ("note <text>", "gate <tag>"). */
    calls: (): string[] => (existsSync(callLog) ? readFileSync(callLog, 'utf8').trim().split('\n') : []),
    /** Lets the gate `tag` answer. */
    release: (tag: string) => writeFileSync(`${callLog}.release-${tag}`, ''),
  };
}
