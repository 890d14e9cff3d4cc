// Shared parsing of YAML/JSON config text against a zod schema, with errors that name file, line and key.
import { LineCounter, parseDocument, isNode } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';

/** Bounds the work a hostile file can cause (YAML aliases expand; see DESIGN §4). */
const MAX_ALIAS_COUNT = 100;

/** Parses YAML (JSON is YAML too) and validates it; the first problem becomes one ConfigError. */
export function parseConfigText<S extends z.ZodType>(text: string, file: string, schema: S): z.infer<S> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax) {
    const { line, col } = lineCounter.linePos(syntax.pos[0]);
    throw new ConfigError(file, '', `column ${col}: ${syntax.message.split('\n')[0]}`, { line });
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    throw new ConfigError(file, '', `could not be read as YAML: ${(err as Error).message}`, { cause: err });
  }
  const result = schema.safeParse(data ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') path.push(issue.keys[0]!);
  const key = path.join('.');
  const node = path.length ? doc.getIn(path, true) : undefined;
  const line = isNode(node) && node.range ? lineCounter.linePos(node.range[0]).line : undefined;
  const expected = issue.code === 'unrecognized_keys' ? 'unknown key (check its spelling)' : issue.message;
  throw new ConfigError(file, key || '(top level)', expected, { line });
}
