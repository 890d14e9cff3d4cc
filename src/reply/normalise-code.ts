// The normalisations of a parsed reply, each a small named edit over the tree (magic-string keeps the rest of the text as written).
import MagicString from 'magic-string';
import type { Node, Statement } from '@babel/types';
import { walk, type ParsedCode } from './parse-code.js';

/** Names the sandbox defines; a parameter of solve() with one of them hides the real object (solve is called with no arguments). */
export const SANDBOX_GLOBALS = ['tools', 'mcp', 'console'] as const;

/** A function declaration, function expression or arrow function. */
export type FunctionNode = Extract<Node, { type: 'FunctionDeclaration' | 'FunctionExpression' | 'ArrowFunctionExpression' }>;

/** One top-level definition of solve. */
export interface SolveDefinition {
  /** The top-level statement holding it. */
  statement: Statement;
  /** The function itself. */
  fn: FunctionNode;
  /** For an `export`/`export default` wrapper: the text range to replace and what to put there. */
  unwrap?: { start: number; end: number; text: string };
}

/** The edits of one parse: the text, its tree, and the definition of solve that will run. */
export interface NormaliseContext {
  code: string;
  parsed: ParsedCode;
  edits: MagicString;
  /** The last complete definition of solve, or null. */
  solve: SolveDefinition | null;
  /** Every top-level definition of solve, in order. */
  definitions: SolveDefinition[];
  /** Names that stand for solve (an entry point renamed to solve): their top-level calls are runners too. */
  aliases: string[];
}

/** Whether a node is a function (declaration, expression or arrow). */
export const isFunction = (node: Node | null | undefined): node is FunctionNode =>
  !!node && (node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression');

function definitionIn(statement: Statement): SolveDefinition | null {
  switch (statement.type) {
    case 'FunctionDeclaration':
      return statement.id?.name === 'solve' ? { statement, fn: statement } : null;
    case 'VariableDeclaration': {
      const d = statement.declarations.find((v) => v.id.type === 'Identifier' && v.id.name === 'solve');
      return d && isFunction(d.init) ? { statement, fn: d.init } : null;
    }
    case 'ExpressionStatement': {
      const e = statement.expression;
      return e.type === 'AssignmentExpression' && e.left.type === 'Identifier' && e.left.name === 'solve' && isFunction(e.right)
        ? { statement, fn: e.right }
        : null;
    }
    case 'ExportNamedDeclaration': {
      const inner = statement.declaration ? definitionIn(statement.declaration as Statement) : null;
      return inner ? { statement, fn: inner.fn, unwrap: { start: statement.start!, end: statement.declaration!.start!, text: '' } } : null;
    }
    case 'ExportDefaultDeclaration': {
      const d = statement.declaration;
      if (!isFunction(d as Node)) return null;
      const fn = d as FunctionNode;
      const named = fn.type === 'FunctionDeclaration' && fn.id?.name === 'solve';
      return { statement, fn, unwrap: { start: statement.start!, end: d.start!, text: named ? '' : 'const solve = ' } };
    }
    default:
      return null;
  }
}

/** Reads the top-level definitions of solve from a parse and prepares an edit buffer. */
export function normaliseContext(code: string, parsed: ParsedCode, aliases: string[] = []): NormaliseContext {
  const definitions = parsed.ast.program.body.map(definitionIn).filter((d): d is SolveDefinition => d !== null);
  return { code, parsed, edits: new MagicString(code), solve: definitions.at(-1) ?? null, definitions, aliases };
}

/** The last complete definition of solve wins: earlier ones (a draft the model corrected) are removed. */
export function keepLastSolve(ctx: NormaliseContext): void {
  for (const d of ctx.definitions.slice(0, -1)) ctx.edits.remove(d.statement.start!, d.statement.end!);
}

/**
 * Module syntax becomes a plain script: `export`/`export default` in front of solve go (an anonymous
 * default export becomes `const solve =`), and `export default solve;`, `export { … }` and
 * `module.exports = …` statements are removed.
 */
export function unwrapModuleSyntax(ctx: NormaliseContext): void {
  const kept = ctx.solve;
  if (kept?.unwrap) ctx.edits.overwrite(kept.unwrap.start, kept.unwrap.end, kept.unwrap.text || ' ');
  for (const s of ctx.parsed.ast.program.body) {
    const isExportStatement =
      (s.type === 'ExportNamedDeclaration' && !s.declaration) || (s.type === 'ExportDefaultDeclaration' && s.declaration.type === 'Identifier');
    if (isExportStatement || isCommonJsExport(s)) ctx.edits.remove(s.start!, s.end!);
  }
}

function isCommonJsExport(s: Statement): boolean {
  if (s.type !== 'ExpressionStatement' || s.expression.type !== 'AssignmentExpression') return false;
  let target: Node = s.expression.left;
  // Bounded by the depth of the member chain (`module.exports.solve`).
  while (target.type === 'MemberExpression') {
    if (target.object.type === 'Identifier' && (target.object.name === 'module' || target.object.name === 'exports')) return true;
    target = target.object;
  }
  return target.type === 'Identifier' && target.name === 'exports';
}

/** `await` in a solve() that is not async: solve becomes async. */
export function addMissingAsync(ctx: NormaliseContext): void {
  const fn = ctx.solve?.fn;
  if (!fn || fn.async || fn.generator) return;
  ctx.edits.appendLeft(fn.start!, 'async ');
}

/** Parameters of solve() named like a sandbox global (`solve(mcp, tools)`) are dropped, so the globals show through. */
export function dropShadowingParams(ctx: NormaliseContext): void {
  const fn = ctx.solve?.fn;
  if (!fn || fn.params.length === 0) return;
  const shadows = (param: Node): boolean => {
    let hit = false;
    walk(param, (node) => {
      if (node.type === 'Identifier' && (SANDBOX_GLOBALS as readonly string[]).includes(node.name)) hit = true;
    });
    return hit;
  };
  if (!fn.params.some(shadows)) return;
  const kept = fn.params.filter((p) => !shadows(p)).map((p) => ctx.code.slice(p.start!, p.end!));
  const first = fn.params[0]!.start!;
  const last = fn.params.at(-1)!.end!;
  const parenthesised = ctx.code.slice(0, first).trimEnd().endsWith('(');
  ctx.edits.overwrite(first, last, parenthesised ? kept.join(', ') || ' ' : `(${kept.join(', ')})`);
}

/** Names of the functions a top-level statement declares (`function f`, `const f = () => …`). */
function declaredFunctions(s: Statement): string[] {
  if (s.type === 'FunctionDeclaration') return s.id ? [s.id.name] : [];
  if (s.type !== 'VariableDeclaration') return [];
  return s.declarations.flatMap((d) => (d.id.type === 'Identifier' && isFunction(d.init) ? [d.id.name] : []));
}

/** True when `node` calls one of `names` (`f()`, `f().then(…)`, `await f()`). */
function callsAny(node: Node, names: Set<string>): boolean {
  let calls = false;
  walk(node, (n) => {
    if (n.type === 'CallExpression' && n.callee.type === 'Identifier' && names.has(n.callee.name)) calls = true;
  });
  return calls;
}

/**
 * Every runner of solve goes, so solve runs exactly once (the sandbox calls it): top-level functions
 * that call solve, or call such a runner (`async function main() { console.log(await solve()) }`),
 * and every other top-level statement that calls solve or a runner (`main();`, `solve().then(…)`,
 * an IIFE, `if (require.main === module) {…}`, `const answer = await solve();`), plus statements that
 * use what such a declaration declared (`console.log(answer)`).
 */
export function removeSolveCalls(ctx: NormaliseContext): void {
  const body = ctx.parsed.ast.program.body;
  const kept = new Set<Statement>(ctx.definitions.map((d) => d.statement));
  const targets = new Set(['solve', ...ctx.aliases]);
  // A function solve itself uses is a helper, even if it calls solve back (a retry): it stays.
  const usedBySolve = new Set<string>();
  if (ctx.solve) walk(ctx.solve.fn, (n) => void (n.type === 'Identifier' && usedBySolve.add(n.name)));
  const runners = new Set<Statement>();
  // Each pass adds at least one runner or stops, so this is bounded by the number of statements.
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of body) {
      const names = declaredFunctions(s);
      if (kept.has(s) || runners.has(s) || names.length === 0 || names.some((n) => usedBySolve.has(n)) || !callsAny(s, targets)) continue;
      runners.add(s);
      for (const name of names) targets.add(name);
      grew = true;
    }
  }
  const removedNames = new Set<string>();
  const usesRemoved = (node: Node): boolean => {
    let uses = false;
    walk(node, (n) => {
      if (n.type === 'Identifier' && removedNames.has(n.name)) uses = true;
    });
    return uses;
  };
  for (const s of body) {
    if (kept.has(s)) continue;
    if (runners.has(s)) {
      ctx.edits.remove(s.start!, s.end!);
    } else if (s.type === 'VariableDeclaration' && s.declarations.some((d) => d.init && callsAny(d.init, targets))) {
      for (const d of s.declarations) walk(d.id, (n) => void (n.type === 'Identifier' && removedNames.add(n.name)));
      ctx.edits.remove(s.start!, s.end!);
    } else if (declaredFunctions(s).length === 0 && s.type !== 'ClassDeclaration' && s.type !== 'VariableDeclaration' && (callsAny(s, targets) || usesRemoved(s))) {
      ctx.edits.remove(s.start!, s.end!);
    }
  }
}

/** Every normalisation, in the order they are applied to a reply that defines solve. */
export const NORMALISATIONS = [keepLastSolve, unwrapModuleSyntax, removeSolveCalls, addMissingAsync, dropShadowingParams] as const;

/** A script body with top-level `await` or `return` and no solve (the body of solve, written bare) is wrapped in one. */
export function wrapBareBody(code: string, parsed: ParsedCode): string | null {
  const body = parsed.ast.program.body;
  let topLevel = false;
  for (const s of body) {
    walk(s, (node) => {
      if (isFunction(node) || node.type === 'ClassMethod' || node.type === 'ObjectMethod') return false;
      if (node.type === 'ReturnStatement' || node.type === 'AwaitExpression') topLevel = true;
      return undefined;
    });
  }
  if (!topLevel) return null;
  // The value of the last expression is the result (codemode's rule): `…; "FINAL_ANSWER: " + x`.
  const last = body.at(-1);
  const returned = last?.type === 'ExpressionStatement' ? `${code.slice(0, last.start!)}return ${code.slice(last.start!)}` : code;
  return `async function solve() {\n${returned}\n}`;
}

/** Sources of the code's import declarations (require() and import() fail at run time with their own message). */
export function importedModules(parsed: ParsedCode): string[] {
  return parsed.ast.program.body.flatMap((s) => (s.type === 'ImportDeclaration' && s.importKind !== 'type' ? [s.source.value] : []));
}

/** Every name declared at the top level (functions, classes, variables). */
export function topLevelNames(parsed: ParsedCode): string[] {
  const names: string[] = [];
  for (const s of parsed.ast.program.body) {
    if ((s.type === 'FunctionDeclaration' || s.type === 'ClassDeclaration') && s.id) names.push(s.id.name);
    if (s.type === 'VariableDeclaration') for (const d of s.declarations) walk(d.id, (n) => void (n.type === 'Identifier' && names.push(n.name)));
  }
  return names;
}

/** True when `node` runs something as it is evaluated (a call, `new` or `await` outside any function). */
function hasEffects(node: Node): boolean {
  let effects = false;
  walk(node, (n) => {
    if (isFunction(n)) return false;
    if (n.type === 'CallExpression' || n.type === 'NewExpression' || n.type === 'AwaitExpression') effects = true;
    return undefined;
  });
  return effects;
}

/**
 * The names a block of helpers declares, or null when the block is more than helpers: every top-level
 * statement a function, a class or a variable whose value runs nothing (no call, `new` or `await`), none named solve.
 */
export function helperNames(parsed: ParsedCode): string[] | null {
  for (const s of parsed.ast.program.body) {
    const helper =
      s.type === 'FunctionDeclaration' ||
      s.type === 'ClassDeclaration' ||
      (s.type === 'VariableDeclaration' && s.declarations.every((d) => !d.init || !hasEffects(d.init)));
    if (!helper) return null;
  }
  const names = topLevelNames(parsed);
  return names.includes('solve') ? null : names;
}

/** True when the code mentions `name` anywhere. */
export function usesName(parsed: ParsedCode, name: string): boolean {
  let used = false;
  walk(parsed.ast.program, (n) => {
    if (n.type === 'Identifier' && n.name === name) used = true;
  });
  return used;
}
