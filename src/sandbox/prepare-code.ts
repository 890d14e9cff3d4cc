// Turns a model's reply into runnable JavaScript defining solve(), or a refusal that tells the model what to send; no isolate needed.
import { Script } from 'node:vm';
import { transformSync } from 'esbuild';
import * as messages from '../model-messages.js';
import { findCodeBlocks, proseFinalAnswer, type CodeBlock } from './extract-code.js';
import { MAX_CODE_CHARS } from './limits.js';
import { importedModules, normaliseContext, NORMALISATIONS, topLevelFunctionNames, wrapBareBody, type NormaliseContext } from './normalise-code.js';
import { parseCode, type ParsedCode, type ParseFailure } from './parse-code.js';
import { repairTypography } from './repair-typography.js';
import { findJsonReply, foreignLanguage, planForAnswer, planForToolCall } from './reply-shapes.js';
import type { SandboxError } from './types.js';

/** prepareCode()'s answer: runnable JavaScript, or an error for the model. */
export type PreparedCode = { ok: true; code: string } | { ok: false; error: SandboxError };

interface Candidate {
  block: CodeBlock;
  /** The block's code after typographic repair. */
  code: string;
  parsed: ParsedCode | ParseFailure;
}

/**
 * Reads a model's reply (DESIGN §3.10), in this order:
 * 1. the last code block that parses and defines solve() wins, normalised on its parse tree
 *    (NORMALISATIONS: last solve kept, module syntax unwrapped, self-calls removed, async added,
 *    shadowing parameters dropped; typographic quotes and invisible spaces repaired first);
 * 2. a JSON tool call becomes a one-call plan whose result goes to the next step;
 * 3. a `FINAL_ANSWER: x` line with no solve() is the answer x;
 * 4. a bare body with top-level `await`/`return` is wrapped in `async function solve()`.
 * Anything else is refused with a message (model-messages.ts) saying exactly what to send back:
 * too long, empty, Python or another language, imports, cut off, a syntax error, no solve().
 * TypeScript is parsed as such and stripped with esbuild. Pure and never throws.
 */
export function prepareCode(text: string): PreparedCode {
  try {
    return prepare(text);
  } catch (err) {
    // A parser bug must cost the model a lifeline, not crash the run.
    return fail('syntax', messages.unreadableReply({ problem: err instanceof Error ? err.message : String(err) }));
  }
}

function prepare(text: string): PreparedCode {
  if (text.length > MAX_CODE_CHARS) return fail('syntax', messages.replyTooLong({ chars: text.length, limit: MAX_CODE_CHARS }));
  if (text.trim() === '') return fail('no_solve', messages.replyEmpty());
  const reply = text.replace(/\r\n?/g, '\n');
  const parse = keepingParsedTrees();
  const blocks = findCodeBlocks(reply, parse);
  const candidates: Candidate[] = blocks.map((block) => {
    const asWritten = parse(block.code);
    if (asWritten.ok) return { block, code: block.code, parsed: asWritten };
    const code = repairTypography(block.code);
    const repaired = code === block.code ? asWritten : parseCode(code);
    return repaired.ok ? { block, code, parsed: repaired } : { block, code: block.code, parsed: asWritten };
  });

  const chosen = lastWithSolve(candidates);
  if (chosen) return finish(chosen);

  const json = findJsonReply(reply, blocks);
  if (json?.kind === 'call') return ok(planForToolCall(json.tool, json.args));
  const answer = proseFinalAnswer(reply);
  if (answer !== null) return ok(planForAnswer(answer));
  for (const c of [...candidates].reverse()) {
    if (!c.parsed.ok) continue;
    const wrapped = wrapBareBody(c.code, c.parsed);
    const reparsed = wrapped === null ? null : parseCode(wrapped);
    if (reparsed?.ok) return finish(normaliseContext(wrapped!, reparsed));
  }
  if (json?.kind === 'unknown') return fail('no_solve', messages.unknownJson({ keys: json.keys }));
  return refuse(candidates);
}

/**
 * parseCode that remembers every text it parsed, so a fenced block parsed while its closing fence was
 * found is not parsed again, whether it parsed or not. At most one tree per fence, and fenced bodies do
 * not overlap, so the trees held add up to about one of the reply; a failure holds no tree.
 */
function keepingParsedTrees(): typeof parseCode {
  const parsed = new Map<string, ReturnType<typeof parseCode>>();
  return (code) => {
    const known = parsed.get(code);
    if (known) return known;
    const result = parseCode(code);
    parsed.set(code, result);
    return result;
  };
}

/** Why the reply cannot run, judged on its last block (the one the model most likely meant). */
function refuse(candidates: Candidate[]): PreparedCode {
  const last = candidates.at(-1);
  if (!last) return fail('no_solve', messages.noCode());
  const language = foreignLanguage(last.block);
  if (!last.parsed.ok) {
    if (language === 'Python') return fail('python', messages.pythonRefused());
    if (language) return fail('syntax', messages.otherLanguageRefused({ language }));
    if (!last.block.fenced && !looksLikeCode(last.block.code)) return fail('no_solve', messages.noCode());
    if (last.parsed.atEnd) return fail('syntax', messages.truncatedReply({ line: last.parsed.line }));
    return fail('syntax', messages.syntaxError({ ...last.parsed, lineText: last.code.split('\n')[last.parsed.line - 1] ?? '' }));
  }
  if (!last.block.fenced && !looksLikeCode(last.block.code)) return fail('no_solve', messages.noCode());
  return fail('no_solve', messages.noSolve({ functions: topLevelFunctionNames(last.parsed) }));
}

/** The normalise context of the last candidate that parses and defines solve(), or null. */
function lastWithSolve(candidates: Candidate[]): NormaliseContext | null {
  for (let k = candidates.length - 1; k >= 0; k--) {
    const c = candidates[k]!;
    if (!c.parsed.ok) continue;
    const ctx = normaliseContext(c.code, c.parsed);
    if (ctx.solve !== null) return ctx;
  }
  return null;
}

/** Code punctuation or a declaration keyword somewhere in the text. */
function looksLikeCode(text: string): boolean {
  return /[;{}=]|\b(?:function|const|let|var|return|await)\b/.test(text);
}

/** Applies the normalisations to the chosen block, strips TypeScript, and checks the result compiles as the isolate will run it. */
function finish(ctx: NormaliseContext): PreparedCode {
  const { parsed } = ctx;
  const imports = importedModules(parsed);
  if (imports.length > 0) return fail('syntax', messages.moduleImportRefused({ imports }));
  for (const normalise of NORMALISATIONS) normalise(ctx);
  let out = ctx.edits.toString();
  if (parsed.language === 'ts') out = transformSync(out, { loader: 'ts', target: 'es2022', logLevel: 'silent' }).code;
  const complaint = compiles(out);
  if (complaint === null) return ok(out);
  const again = parseCode(out);
  if (!again.ok) return fail('syntax', messages.syntaxError({ ...again, lineText: out.split('\n')[again.line - 1] ?? '' }));
  return fail('syntax', messages.syntaxError({ line: 1, column: 1, problem: complaint, lineText: '' }));
}

function ok(code: string): PreparedCode {
  return { ok: true, code };
}

function fail(kind: SandboxError['kind'], message: string): PreparedCode {
  return { ok: false, error: { kind, message } };
}

/** Compiles (never runs) the code as the body of a function, which is how the isolate runs it; V8's complaint, or null. */
function compiles(code: string): string | null {
  try {
    new Script(`(function () {\n${code}\n})`, { filename: 'solve.js' });
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
