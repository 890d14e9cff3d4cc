// The tool-search benchmark's parts: real catalogues of 17 MCP servers (525 tools), the question sets, top-k recall.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { offeredNames } from '../../src/mcp/offered-names.js';
import type { ToolInfo } from '../../src/mcp/types.js';
import { PROJECT_ROOT } from '../../src/paths.js';

const FIXTURES = join(PROJECT_ROOT, 'tests', 'fixtures');

/** A question and the tools (`server.tool`) any of which answers it. */
export type Question = [string, string[]];
type Catalogues = Record<string, Array<{ name: string; description: string; inputSchema: Record<string, unknown> }>>;

const readJson = <T>(...path: string[]) => JSON.parse(readFileSync(join(FIXTURES, ...path), 'utf8')) as T;

/** Tools offered under the names a run gives them (`<server>.<tool>` where servers share a name). */
export function named(tools: Array<Omit<ToolInfo, 'name'>>): ToolInfo[] {
  const names = offeredNames(tools.map((t) => ({ ...t, name: t.remoteName })));
  return tools.map((t, i) => ({ ...t, name: names[i]! }));
}

function toolsOf(catalogues: Catalogues): Array<Omit<ToolInfo, 'name'>> {
  return Object.entries(catalogues).flatMap(([server, tools]) => tools.map((t) => ({ server, remoteName: t.name, description: t.description, inputSchema: t.inputSchema })));
}

/** Servers in node_modules (tests/fixtures/tool-catalogues) and servers read from their repositories (tool-search). */
export const realTools = named([
  ...toolsOf(readJson<Catalogues>('tool-catalogues', 'catalogues.json')),
  ...toolsOf(readJson<{ catalogues: Catalogues }>('tool-search', 'remote-catalogues.json').catalogues),
]);

const older = readJson<{ questions: Question[]; held_out_1: Question[]; held_out_2: Question[] }>('tool-catalogues', 'questions.json');
const newer = readJson<{ dev: Question[] }>('tool-search', 'questions.json');
const unseen = readJson<{ held_out: Question[] }>('tool-search', 'unseen-questions.json');

/** Questions the ranker was tuned on or measured with before: the three older sets and the 75 of questions.json. */
export const devQuestions: Question[] = [...older.questions, ...older.held_out_1, ...older.held_out_2, ...newer.dev];
/** Questions never looked at while tuning (unseen-questions.json): measured once, at the end of a round. */
export const heldOutQuestions: Question[] = unseen.held_out;

/** How many questions have one of their tools among the first `top` found by `search`, and the misses. */
export function recall(tools: readonly ToolInfo[], set: readonly Question[], top: number, search: (query: string, limit: number) => Array<{ name: string }>): { hits: number; misses: string[] } {
  const byName = new Map(tools.map((t) => [t.name, `${t.server}.${t.remoteName}`]));
  let hits = 0;
  const misses: string[] = [];
  for (const [question, expected] of set) {
    const found = search(question, top).map((m) => byName.get(m.name)!);
    if (found.some((f) => expected.includes(f))) hits++;
    else misses.push(`"${question}" → ${found.join(', ') || '(nothing)'}`);
  }
  return { hits, misses };
}
