// Entry points other than solve() whose meaning is clear (Cloudflare codemode runs all of them): an anonymous function, an IIFE, one function nothing else calls.
import type { Node, Statement } from '@babel/types';
import { isFunction, type FunctionNode } from './normalise-code.js';
import { walk, type ParsedCode } from './parse-code.js';

/** The code rewritten so it defines solve, and the names that now stand for solve (their top-level calls are runners). */
export interface EntryPoint {
  code: string;
  aliases: string[];
}

/** `(async () => …)()` or `void (async () => …)()` with no arguments: the function it calls. */
function iifeCallee(statement: Statement): FunctionNode | null {
  if (statement.type !== 'ExpressionStatement') return null;
  let e: Node = statement.expression;
  if (e.type === 'UnaryExpression' && e.operator === 'void') e = e.argument;
  if (e.type === 'AwaitExpression') e = e.argument;
  return e.type === 'CallExpression' && e.arguments.length === 0 && isFunction(e.callee) ? e.callee : null;
}

/** The top-level functions with a name: declarations and `const f = function / arrow`. */
function namedFunctions(body: Statement[]): Array<{ name: string; id: Node; fn: FunctionNode }> {
  const out: Array<{ name: string; id: Node; fn: FunctionNode }> = [];
  for (const s of body) {
    const d = s.type === 'ExportNamedDeclaration' && s.declaration ? (s.declaration as Statement) : s;
    if (d.type === 'FunctionDeclaration' && d.id) out.push({ name: d.id.name, id: d.id, fn: d });
    if (d.type === 'VariableDeclaration') {
      for (const v of d.declarations) if (v.id.type === 'Identifier' && isFunction(v.init)) out.push({ name: v.id.name, id: v.id, fn: v.init });
    }
  }
  return out;
}

/** Names used inside `node` (not counting `exclude`, the declaration's own name node). */
function usedNames(node: Node, exclude: Node): Set<string> {
  const names = new Set<string>();
  walk(node, (n) => {
    if (n !== exclude && n.type === 'Identifier') names.add(n.name);
  });
  return names;
}

/**
 * For code that parses but defines no solve: a single anonymous function expression statement
 * (`async () => {…}`) becomes `const solve = …`; a single IIFE becomes its function; else exactly one
 * top-level function that no other function uses (helpers are used) is renamed solve. Null when
 * none of these is unambiguous.
 */
export function findEntryPoint(code: string, parsed: ParsedCode): EntryPoint | null {
  const body = parsed.ast.program.body;
  const anonymous = body.filter((s) => s.type === 'ExpressionStatement' && isFunction(s.expression));
  const iifes = body.filter((s) => iifeCallee(s) !== null);
  if (anonymous.length + iifes.length === 1) {
    const s = (anonymous[0] ?? iifes[0])!;
    const fn = anonymous[0] ? (anonymous[0] as Extract<Statement, { type: 'ExpressionStatement' }>).expression : iifeCallee(s)!;
    return { code: `${code.slice(0, s.start!)}const solve = ${code.slice(fn.start!, fn.end!)};${code.slice(s.end!)}`, aliases: [] };
  }
  if (anonymous.length + iifes.length > 1) return null;
  const functions = namedFunctions(body);
  const entries = functions.filter((f) => !functions.some((other) => other !== f && usedNames(other.fn, other.id).has(f.name)));
  if (entries.length !== 1) return null;
  const { id, name } = entries[0]!;
  return { code: `${code.slice(0, id.start!)}solve${code.slice(id.end!)}`, aliases: [name] };
}

/** Names of the top-level functions (for the feedback when no entry point is clear). */
export function entryCandidates(parsed: ParsedCode): string[] {
  return namedFunctions(parsed.ast.program.body).map((f) => f.name);
}
