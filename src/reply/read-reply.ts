// Turns a model's reply into runnable JavaScript defining solve(), or a refusal that tells the model what to send; no isolate needed.
import { createRequire } from 'node:module';
import { Script } from 'node:vm';
import { errorMessage } from '../errors.js';
import * as messages from '../model-messages.js';
import { replyDiagnosis, type DiagnosisFacts } from '../sandbox/diagnosis.js';
import { entryCandidates, findEntryPoint } from './entry-point.js';
import type { CodeBlock } from './code-block.js';
import { findCodeBlocks, looksLikeCode, proseFinalAnswer } from './extract-code.js';
import { helperNames, importedModules, normaliseContext, NORMALISATIONS, topLevelNames, usesName, wrapBareBody, type NormaliseContext } from './normalise-code.js';
import { parseCode, type ParsedCode, type ParseFailure } from './parse-code.js';
import { repairTypography } from './repair-typography.js';
import { findJsonReply, foreignLanguage, looksLikeDiff, looksLikePython, planForAnswer, planForToolCall } from './reply-shapes.js';
import { readTurn, type Turn } from './reply-turn.js';
import type { ReplyProblem, SandboxError } from '../sandbox/types.js';

/** Source size accepted from the model; real plans are a few KB. */
export const MAX_CODE_CHARS = 200_000;

/** readReply()'s answer: runnable JavaScript, or an error for the model (with its problem and a plain diagnosis). */
export type PreparedCode = { ok: true; code: string } | { ok: false; error: SandboxError };

interface Candidate {
  block: CodeBlock;
  /** The block's code after typographic repair. */
  code: string;
  parsed: ParsedCode | ParseFailure;
}

/**
 * Reads a model's reply (DESIGN §3.10; docs/reply-reader.md), in this order:
 * 0. only the model's own turn counts: reasoning in any tag form is removed (an unclosed one means
 *    the reply ended while still reasoning), text after a hallucinated next turn is dropped, and
 *    wrapper tags (`<code>`, `<execute>`, `<tool_code>`) are read as fences;
 * 1. the last code block that parses and defines solve() wins, with the helpers it uses from earlier
 *    blocks, normalised on its parse tree (NORMALISATIONS: last solve kept, module syntax unwrapped,
 *    runners of solve removed, async added, shadowing parameters dropped; typography repaired first);
 * 2. a JSON tool call becomes a one-call plan whose result goes to the next step;
 * 3. a `FINAL_ANSWER:` line of prose is the answer: everything after it, markdown kept;
 * 4. another clear entry point (an anonymous function, an IIFE, one function nothing calls) is solve;
 * 5. a bare body with top-level `await`/`return` is wrapped in `async function solve()`.
 * Anything else is refused with a message (model-messages.ts) saying what to send back, and a plain
 * diagnosis (diagnosis.ts) naming the real problem. Pure and never throws.
 */
export function readReply(text: string): PreparedCode {
  try {
    return prepare(text);
  } catch (err) {
    // A parser bug must cost the model a lifeline, not crash the run.
    const problem = errorMessage(err);
    return fail('syntax', messages.unreadableReply({ problem }), 'unreadable', { problem });
  }
}

function prepare(text: string): PreparedCode {
  if (text.length > MAX_CODE_CHARS) {
    return fail('syntax', messages.replyTooLong({ chars: text.length, limit: MAX_CODE_CHARS }), 'too_long', { chars: text.length, limit: MAX_CODE_CHARS });
  }
  if (text.trim() === '') return fail('no_solve', messages.replyEmpty(), 'empty');
  const turn = readTurn(text.replace(/\r\n?/g, '\n'));
  const parse = keepingParsedTrees();
  const blocks = findCodeBlocks(turn.text, parse);
  const candidates: Candidate[] = blocks.map((block) => {
    const asWritten = parse(block.code);
    if (asWritten.ok) return { block, code: block.code, parsed: asWritten };
    const code = repairTypography(block.code);
    const repaired = code === block.code ? asWritten : parseCode(code);
    return repaired.ok ? { block, code, parsed: repaired } : { block, code: block.code, parsed: asWritten };
  });

  const chosen = lastWithSolve(candidates);
  if (chosen) return finish(chosen);

  const json = findJsonReply(turn.text, blocks);
  if (json?.kind === 'call') return ok(planForToolCall(json.tool, json.args));
  if (json?.kind === 'several') return fail('no_solve', messages.severalToolCalls({ tools: json.tools }), 'several_tool_calls', { tools: json.tools });
  const answer = proseFinalAnswer(turn.text);
  if (answer !== null) return ok(planForAnswer(answer));
  const last = candidates.at(-1);
  if (last && looksLikePython(last.block) && !looksLikeDiff(last.block)) return fail('python', messages.pythonRefused(), 'python');
  for (const c of [...candidates].reverse()) {
    if (!c.parsed.ok) continue;
    const entry = findEntryPoint(c.code, c.parsed) ?? bareBody(c.code, c.parsed);
    const reparsed = entry === null ? null : parseCode(entry.code);
    if (reparsed?.ok) return finish(normaliseContext(entry!.code, reparsed, entry!.aliases));
  }
  if (json?.kind === 'unknown') return fail('no_solve', messages.unknownJson({ keys: json.keys }), 'unknown_json');
  return refuse(candidates, turn);
}

function bareBody(code: string, parsed: ParsedCode): { code: string; aliases: string[] } | null {
  const wrapped = wrapBareBody(code, parsed);
  return wrapped === null ? null : { code: wrapped, aliases: [] };
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
function refuse(candidates: Candidate[], turn: Turn): PreparedCode {
  const last = candidates.at(-1);
  if (turn.stillReasoning && (!last || !last.block.fenced)) return fail('no_solve', messages.stillReasoning(), 'still_reasoning');
  if (!last) return fail('no_solve', messages.noCode(), 'no_code');
  if (looksLikeDiff(last.block)) return fail('syntax', messages.diffRefused(), 'diff');
  // A last block in Python was refused before refuse() is reached (prepare()).
  if (!last.parsed.ok) {
    const language = foreignLanguage(last.block);
    if (language) return fail('syntax', messages.otherLanguageRefused({ language }), 'other_language', { language });
    if (!last.block.fenced && !looksLikeCode(last.block.code)) return fail('no_solve', messages.noCode(), 'no_code');
    const { line, problem } = last.parsed;
    if (last.parsed.atEnd && last.block.codeAfter) return fail('syntax', messages.unpairedFence({ line }), 'unpaired_fence');
    if (last.parsed.atEnd) return fail('syntax', messages.truncatedReply({ line }), 'truncated');
    const lineText = last.code.split('\n')[line - 1] ?? '';
    return fail('syntax', messages.syntaxError({ ...last.parsed, lineText }), 'syntax', { line, problem });
  }
  if (!last.block.fenced && !looksLikeCode(last.block.code)) return fail('no_solve', messages.noCode(), 'no_code');
  const functions = entryCandidates(last.parsed);
  return fail('no_solve', messages.noSolve({ functions }), 'no_solve', { functions });
}

/** The normalise context of the last candidate that parses and defines solve (with the helpers it uses from earlier blocks), or null. */
function lastWithSolve(candidates: Candidate[]): NormaliseContext | null {
  for (let k = candidates.length - 1; k >= 0; k--) {
    const c = candidates[k]!;
    if (!c.parsed.ok) continue;
    const ctx = normaliseContext(c.code, c.parsed);
    if (ctx.solve === null) continue;
    return withEarlierHelpers(ctx, candidates.slice(0, k));
  }
  return null;
}

/**
 * Blocks before the chosen one that only declare helpers (functions, constant values) the chosen
 * block uses but does not define are put in front of it: the model wrote them once and reused them.
 */
function withEarlierHelpers(ctx: NormaliseContext, earlier: Candidate[]): NormaliseContext {
  const own = new Set(topLevelNames(ctx.parsed));
  const helpers = earlier.filter((c) => {
    if (!c.parsed.ok || looksLikePython(c.block)) return false;
    const names = helperNames(c.parsed);
    return names !== null && names.some((name) => !own.has(name) && usesName(ctx.parsed, name));
  });
  if (helpers.length === 0) return ctx;
  const code = [...helpers.map((c) => c.code), ctx.code].join('\n');
  const parsed = parseCode(code);
  return parsed.ok ? normaliseContext(code, parsed) : ctx;
}

/** Applies the normalisations to the chosen block, strips TypeScript, and checks the result compiles as the isolate will run it. */
function finish(ctx: NormaliseContext): PreparedCode {
  const { parsed } = ctx;
  const imports = importedModules(parsed);
  if (imports.length > 0) return fail('syntax', messages.moduleImportRefused({ imports }), 'imports', { imports });
  for (const normalise of NORMALISATIONS) normalise(ctx);
  let out = ctx.edits.toString();
  if (parsed.language === 'ts') out = esbuild().transformSync(out, { loader: 'ts', target: 'es2022', logLevel: 'silent' }).code;
  const complaint = compiles(out);
  if (complaint === null) return ok(out);
  const again = parseCode(out);
  if (!again.ok) return fail('syntax', messages.syntaxError({ ...again, lineText: out.split('\n')[again.line - 1] ?? '' }), 'syntax', again);
  return fail('syntax', messages.syntaxError({ line: 1, column: 1, problem: complaint, lineText: '' }), 'syntax', { problem: complaint });
}

let esbuildModule: typeof import('esbuild') | undefined;

/** esbuild, loaded on the first TypeScript reply only: most replies are JavaScript, and loading it costs every start. */
function esbuild(): typeof import('esbuild') {
  esbuildModule ??= createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  return esbuildModule;
}

function ok(code: string): PreparedCode {
  return { ok: true, code };
}

function fail(kind: SandboxError['kind'], message: string, problem: ReplyProblem, facts: DiagnosisFacts = {}): PreparedCode {
  return { ok: false, error: { kind, message, problem, diagnosis: replyDiagnosis(problem, facts) } };
}

/** Compiles (never runs) the code as the body of a function, which is how the isolate runs it; V8's complaint, or null. */
function compiles(code: string): string | null {
  try {
    new Script(`(function () {\n${code}\n})`, { filename: 'solve.js' });
    return null;
  } catch (err) {
    return errorMessage(err);
  }
}
