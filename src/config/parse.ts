// Shared parsing of YAML/JSON config text against a zod schema, with errors that name file, line and key.
import { Alias, isNode, isPair, isScalar, LineCounter, parseDocument, visit, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { closestNames } from '../closest-names.js';
import { ConfigError } from '../errors.js';
import { WHOLE_FILE } from './read-config-file.js';

/** Bounds the work a hostile file can cause (YAML aliases expand; see DESIGN §4). */
export const MAX_ALIAS_COUNT = 100;

/** A parsed config file that can say which line a key is on. */
export interface ParsedConfig {
  doc: Document;
  lineCounter: LineCounter;
}

/** The last text parsed: loading a profile reads one text for its settings, its servers and its line numbers. */
let last: { text: string; parsed: ParsedConfig } | undefined;

/**
 * The YAML document of config text (duplicate keys are errors), with its line counter; errors are in `doc.errors`.
 * The same text twice in a row is parsed once (callers only read the document).
 */
export function parse(text: string): ParsedConfig {
  if (last?.text === text) return last.parsed;
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  last = { text, parsed: { doc, lineCounter } };
  return last.parsed;
}

/**
 * The 1-based line of the setting at `path` (e.g. ['llm', 'embedding']) in `parsed`; when that key is absent, the line
 * of its nearest parent that is there, and 1 for the top level.
 */
function lineOf({ doc, lineCounter }: ParsedConfig, path: readonly string[]): number {
  for (let depth = path.length; depth > 0; depth--) {
    const node = doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
  }
  return 1;
}

/** The 1-based line of the setting at `path` in config text (see {@link parseConfigText} for the text's rules). */
export function configLine(text: string, path: readonly string[]): number {
  return lineOf(parse(text), path);
}

/** The dotted key of a visit() path (the keys of the pairs on it), e.g. "mcp_servers.0.env". */
function keyOfPath(path: readonly unknown[]): string {
  const keys: string[] = [];
  for (const step of path) if (isPair(step) && isScalar(step.key)) keys.push(String(step.key.value));
  return keys.join('.');
}

/** The dotted key of the last setting that starts at or before `offset` (where a syntax error was found), or ''. */
function keyAt({ doc }: ParsedConfig, offset: number): string {
  let key = '';
  visit(doc, {
    Pair(_key, pair, path) {
      const start = isNode(pair.key) ? pair.key.range?.[0] : undefined;
      if (start === undefined || start > offset) return visit.BREAK;
      key = [keyOfPath(path), isScalar(pair.key) ? String(pair.key.value) : ''].filter(Boolean).join('.');
      return undefined;
    },
  });
  return key;
}

/** The alias most likely to blow up (one naming a node that itself holds aliases), with its key and line. */
function worstAlias({ doc, lineCounter }: ParsedConfig): { key: string; line: number } | undefined {
  let first: { key: string; line: number } | undefined;
  let nested: { key: string; line: number } | undefined;
  visit(doc, {
    Alias(_key, node: Alias, path) {
      const where = { key: keyOfPath(path), line: node.range ? lineCounter.linePos(node.range[0]).line : 1 };
      first ??= where;
      const source = node.resolve(doc) as Node | undefined;
      let holdsAlias = false;
      if (source) visit(source, { Alias: () => ((holdsAlias = true), visit.BREAK) });
      if (holdsAlias) {
        nested = where;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return nested ?? first;
}

/** True when config text holds nothing but whitespace and comments (it then parses as every default). */
export function isEmptyConfig(text: string): boolean {
  return parse(text).doc.contents === null;
}

/**
 * Parses YAML (JSON is YAML too) and validates it; the first problem becomes one ConfigError naming the file, the
 * line and the key. An empty file is an empty object: every default.
 */
export function parseConfigText<S extends z.ZodType>(text: string, file: string, schema: S): z.infer<S> {
  const parsed = parse(text);
  const { doc, lineCounter } = parsed;
  const syntax = doc.errors[0];
  if (syntax) {
    const { line, col } = lineCounter.linePos(syntax.pos[0]);
    throw new ConfigError(file, keyAt(parsed, syntax.pos[0]), `column ${col}: ${syntax.message.split('\n')[0]}`, { line });
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    const alias = worstAlias(parsed);
    const why = /alias count/i.test((err as Error).message)
      ? `its YAML aliases expand past ${MAX_ALIAS_COUNT} nodes (a "billion laughs" file?); write the values out instead`
      : `could not be read as YAML: ${(err as Error).message}`;
    throw new ConfigError(file, alias?.key || WHOLE_FILE, why, { line: alias?.line ?? 1, cause: err });
  }
  const result = schema.safeParse(data ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') path.push(issue.keys[0]!);
  const key = path.join('.');
  const expected = issue.code === 'unrecognized_keys' ? unknownKeyMessage(issue.keys[0]!, knownKeysAt(schema, issue.path)) : issue.message;
  throw new ConfigError(file, key || '(top level)', expected, { line: lineOf(parsed, path) });
}

/** The keys an object of `schema` at `path` accepts (defaults, optionals, arrays and records unwrapped); [] when not found. */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let node: unknown = schema;
  const unwrap = (n: unknown): unknown => {
    // Bounded by the schema's nesting: each pass removes one wrapper.
    for (let i = 0; i < 10; i++) {
      const def = (n as { def?: { innerType?: unknown; in?: unknown } })?.def;
      if (def?.innerType) n = def.innerType;
      else if (def?.in) n = def.in;
      else break;
    }
    return n;
  };
  for (const step of path) {
    node = unwrap(node);
    const def = (node as { def?: { element?: unknown; valueType?: unknown } })?.def;
    const shape = (node as { shape?: Record<string, unknown> })?.shape;
    node = typeof step === 'number' ? def?.element : (shape?.[String(step)] ?? def?.valueType);
  }
  const shape = (unwrap(node) as { shape?: Record<string, unknown> })?.shape;
  return shape ? Object.keys(shape) : [];
}

function unknownKeyMessage(key: string, known: readonly string[]): string {
  const [nearest] = closestNames(key, known, 1);
  return nearest ? `unknown key (did you mean ${nearest}?)` : 'unknown key (check its spelling)';
}
