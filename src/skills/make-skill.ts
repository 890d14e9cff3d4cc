// Makes a skill from a session's trace: the last question answered in one step, its plan, and the values it took from the question as parameters.
import { readFile, stat } from 'node:fs/promises';
import type { Node } from '@babel/types';
import { UsageError } from '../errors.js';
import type { TraceEvent } from '../memory/trace.js';
import { parseCode, walk } from '../reply/parse-code.js';
import { readReply } from '../reply/read-reply.js';
import type { Skill } from './skill-file.js';

/** Largest trace read to find a plan, in bytes (a long REPL session's trace stays far below it). */
const MAX_TRACE_BYTES = 64 * 2 ** 20;
/** Parameters made at most: a plan full of literals keeps the rest as they are. */
const MAX_PARAMETERS = 20;

/**
 * The skill `name` from the trace at `traceFile`: the last question of the session that was answered in one step
 * (later steps' code holds what earlier steps returned, which a rerun would not recompute).
 * @throws UsageError when the session has no such question.
 */
export async function skillFromTrace({ name, traceFile, sessionId, now = new Date() }: { name: string; traceFile: string; sessionId: string; now?: Date }): Promise<Skill> {
  const size = await stat(traceFile).then((s) => s.size, () => -1);
  if (size < 0) throw new UsageError(`session ${sessionId} has no trace, so it has no plan to save`);
  if (size > MAX_TRACE_BYTES) throw new UsageError(`the trace of session ${sessionId} is larger than ${MAX_TRACE_BYTES / 2 ** 20} MB; save from a shorter session`);
  const events = (await readFile(traceFile, 'utf8')).split('\n').flatMap((line) => {
    try {
      return line.trim() ? [JSON.parse(line) as TraceEvent] : [];
    } catch {
      return [];
    }
  });
  const answer = [...events].reverse().find((e): e is Extract<TraceEvent, { type: 'answer' }> => e.type === 'answer');
  if (!answer) throw new UsageError(`session ${sessionId} has no answered question, so there is no plan to save`);
  const run = events.filter((e) => e.run_id === answer.run_id);
  const start = run.find((e): e is Extract<TraceEvent, { type: 'run_start' }> => e.type === 'run_start');
  if (answer.step > 1) {
    throw new UsageError(`the last answered question of session ${sessionId} took ${answer.step} steps; only a plan that answered in one step can be saved (a later step's code holds what the model read before it)`);
  }
  const plan = [...run].reverse().find((e): e is Extract<TraceEvent, { type: 'plan' }> => e.type === 'plan' && e.step === answer.step);
  const prepared = plan ? readReply(plan.code) : null;
  if (!start || !prepared?.ok) throw new UsageError(`the last answered question of session ${sessionId} was answered without code, so there is no plan to save`);
  const perception = run.find((e): e is Extract<TraceEvent, { type: 'perception' }> => e.type === 'perception');
  const { code, parameters, question } = parameterise(prepared.code, start.query);
  return {
    name,
    description: `Saved from the question "${start.query.slice(0, 200)}"`,
    question,
    servers: perception?.selected_servers ?? [],
    parameters,
    code,
    saved_from: { session: sessionId, saved_at: now.toISOString() },
  };
}

/**
 * Turns the string and number literals of `code` whose values appear in `question` into `args.<name>` (named after
 * the property they fill, e.g. `{string: "INDIA"}` → `args.string`), and marks them in the question as `{name}`.
 */
export function parameterise(code: string, question: string): { code: string; parameters: Skill['parameters']; question: string } {
  const parsed = parseCode(code);
  if (!parsed.ok) return { code, parameters: {}, question };
  const byValue = new Map<string | number, string>();
  const edits: Array<{ start: number; end: number; name: string }> = [];
  walk(parsed.ast.program as unknown as Node, (node, parents) => {
    if (node.type !== 'StringLiteral' && node.type !== 'NumericLiteral') return;
    const value = node.value;
    if (!appearsIn(question, value) || !isValuePosition(node, parents.at(-1))) return;
    let name = byValue.get(value);
    if (!name) {
      if (byValue.size >= MAX_PARAMETERS) return;
      name = uniqueName(nameFor(node, parents.at(-1)), new Set(byValue.values()));
      byValue.set(value, name);
    }
    edits.push({ start: node.start!, end: node.end!, name });
  });
  let out = code;
  for (const edit of edits.sort((a, b) => b.start - a.start)) out = `${out.slice(0, edit.start)}args.${edit.name}${out.slice(edit.end)}`;
  let marked = question;
  const parameters: Skill['parameters'] = {};
  for (const [value, name] of byValue) {
    parameters[name] = { default: value };
    marked = marked.split(String(value)).join(`{${name}}`);
  }
  return { code: out, parameters, question: marked };
}

function appearsIn(question: string, value: string | number): boolean {
  if (typeof value === 'number') {
    const text = String(value).replace(/[.]/g, '\\.');
    return new RegExp(`(^|[^\\d.])${text}([^\\d.]|$)`).test(question);
  }
  return value.trim().length >= 2 && question.includes(value);
}

/** Not an object key, a member name (`tools["add"]`), or the tool name given to mcp.call_tool. */
function isValuePosition(node: Node, parent: Node | undefined): boolean {
  if (!parent) return true;
  if (parent.type === 'ObjectProperty' && parent.key === node) return false;
  if (parent.type === 'MemberExpression' && parent.property === node) return false;
  if (parent.type === 'CallExpression' && parent.arguments[0] === node && parent.callee.type === 'MemberExpression') {
    const callee = parent.callee.property;
    if (callee.type === 'Identifier' && /^(call_tool|callTool|read_resource|readResource)$/.test(callee.name)) return false;
  }
  return true;
}

function nameFor(node: Node, parent: Node | undefined): string {
  if (parent?.type === 'ObjectProperty' && parent.value === node) {
    const key = parent.key.type === 'Identifier' ? parent.key.name : parent.key.type === 'StringLiteral' ? parent.key.value : '';
    const clean = key.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(\d)/, '_$1');
    if (clean) return clean;
  }
  return node.type === 'NumericLiteral' ? 'number' : 'text';
}

function uniqueName(base: string, taken: Set<string>): string {
  if (!taken.has(base)) return base;
  // At most MAX_PARAMETERS names are taken, so one of the first MAX_PARAMETERS + 1 suffixes is free.
  for (let i = 2; i <= MAX_PARAMETERS + 1; i++) if (!taken.has(`${base}_${i}`)) return `${base}_${i}`;
  return `${base}_${taken.size + 2}`;
}
