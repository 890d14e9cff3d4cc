// Parses a model's code with @babel/parser: JavaScript first, TypeScript when that fails; reports where it does not parse.
import { createRequire } from 'node:module';
import type { ParseResult } from '@babel/parser';
import type { File, Node } from '@babel/types';

type Babel = typeof import('@babel/parser');
let babel: Babel | undefined;

/**
 * The parser, a large module, loaded at the first parse or warm-up rather than at start, so a question's first model
 * request is not kept waiting for it.
 */
function loadParser(): Babel {
  babel ??= createRequire(import.meta.url)('@babel/parser') as Babel;
  return babel;
}

/** Loads the parser and parses a small plan once, so the first reply is read by code already compiled. */
export function warmUpParser(): void {
  if (babel) return;
  parseCode('async function solve() { const r = await tools.f({ a: 1 }); return `FINAL_ANSWER: ${r}`; }');
}

/**
 * Recoverable errors that a normalisation repairs: `await` in a function that is not async (we add
 * `async` when it is solve) and a second `const solve` (the last definition wins).
 */
const REPAIRABLE_ERRORS = new Set(['AwaitNotInAsyncContext', 'VarRedeclaration']);

/** A successful parse: the tree, which language it was, and the await errors left to repair. */
export interface ParsedCode {
  ok: true;
  ast: ParseResult<File>;
  language: 'js' | 'ts';
  /** Offsets of `await` expressions found in functions that are not async. */
  strayAwaits: number[];
}

/** Where and why the code does not parse. */
export interface ParseFailure {
  ok: false;
  line: number;
  column: number;
  problem: string;
  /**
   * True when the text was cut off: the error is at the very end, or a string, template, comment or
   * regular expression is still open when the text ends.
   */
  atEnd: boolean;
}

interface BabelError {
  reasonCode?: string;
  message: string;
  loc?: { line: number; column: number; index: number };
  pos?: number;
}

function tryParse(code: string, typescript: boolean): ParsedCode | ParseFailure {
  let ast: ParseResult<File>;
  try {
    ast = loadParser().parse(code, {
      sourceType: 'module',
      errorRecovery: true,
      allowReturnOutsideFunction: true,
      allowAwaitOutsideFunction: true,
      plugins: typescript ? ['typescript'] : [],
    });
  } catch (err) {
    return failure(code, err as BabelError);
  }
  const errors = (ast.errors ?? []) as BabelError[];
  const fatal = errors.find((e) => !REPAIRABLE_ERRORS.has(e.reasonCode ?? ''));
  if (fatal) return failure(code, fatal);
  const strayAwaits = errors.filter((e) => e.reasonCode === 'AwaitNotInAsyncContext').map((e) => e.loc?.index ?? e.pos ?? 0);
  return { ok: true, ast, language: typescript ? 'ts' : 'js', strayAwaits };
}

/** Tokens still open at the end of a cut-off text: babel reports them where they start. */
const OPEN_TOKEN_ERRORS = new Set(['UnterminatedComment', 'UnterminatedTemplate', 'UnterminatedRegExp']);

function failure(code: string, err: BabelError): ParseFailure {
  const index = err.loc?.index ?? err.pos ?? code.length;
  const problem = err.message.replace(/\s*\(\d+:\d+\)\s*$/, '');
  const rest = code.slice(index);
  // A string cannot span lines, so one left open runs to the end only when no line break follows it.
  const openToEnd = OPEN_TOKEN_ERRORS.has(err.reasonCode ?? '') || (err.reasonCode === 'UnterminatedString' && !rest.trimEnd().includes('\n'));
  return { ok: false, line: err.loc?.line ?? 1, column: (err.loc?.column ?? 0) + 1, problem, atEnd: rest.trim() === '' || openToEnd };
}

/**
 * Parses `code` as JavaScript (module syntax, top-level await and return allowed), else as
 * TypeScript. Never throws. The JavaScript failure is reported, since that is what the model was asked for.
 */
export function parseCode(code: string): ParsedCode | ParseFailure {
  const js = tryParse(code, false);
  if (js.ok) return js;
  const ts = tryParse(code, true);
  return ts.ok ? ts : js;
}

/** Babel node keys that hold no child nodes. */
const NON_CHILD_KEYS = new Set(['loc', 'start', 'end', 'extra', 'leadingComments', 'trailingComments', 'innerComments', 'range']);

/** Visits `node` and every node under it, depth first; `visit` returns false to skip a node's children. Bounded by the tree's size. */
export function walk(node: Node, visit: (node: Node, parents: Node[]) => boolean | void, parents: Node[] = []): void {
  if (visit(node, parents) === false) return;
  const chain = [...parents, node];
  for (const [key, value] of Object.entries(node)) {
    if (NON_CHILD_KEYS.has(key)) continue;
    if (Array.isArray(value)) {
      for (const child of value) if (isNode(child)) walk(child, visit, chain);
    } else if (isNode(value)) {
      walk(value, visit, chain);
    }
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
