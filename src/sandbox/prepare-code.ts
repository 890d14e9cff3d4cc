// Turns a model's answer into runnable JavaScript defining solve(), or an error for the model; no isolate needed.
import { Script } from 'node:vm';
import { transformSync } from 'esbuild';
import { extractCode, normaliseModuleSyntax, PYTHON_DEF_RE, SOLVE_DEF_RE } from './extract-code.js';
import { MAX_CODE_CHARS } from './limits.js';
import type { SandboxError } from './types.js';

/** prepareCode()'s answer: runnable JavaScript, or an error for the model. */
export type PreparedCode = { ok: true; code: string } | { ok: false; error: SandboxError };

const HOW_TO = 'Write JavaScript: `async function solve() { … }` that awaits tools (e.g. `await tools.add({a: 1, b: 2})`) and returns the answer.';

/**
 * Extracts and checks the code in a model's answer (DESIGN §3.2): fences with any label, prose around
 * it, `const solve = async () =>`, `export`/`export default`, TypeScript (transpiled by esbuild).
 * Python, syntax errors, imports and a missing solve() come back as errors written for the model.
 * Pure: nothing is executed; the syntax check only compiles the code.
 */
export function prepareCode(text: string): PreparedCode {
  if (text.length > MAX_CODE_CHARS) {
    return fail('syntax', `Your answer is ${text.length} characters; the limit is ${MAX_CODE_CHARS}. Write a short solve() that calls tools instead of embedding data.`);
  }
  const extracted = extractCode(text);
  if (PYTHON_DEF_RE.test(extracted) && !/\bfunction\b|=>/.test(extracted)) {
    return fail('python', `This is Python; the sandbox runs JavaScript only. ${HOW_TO}`);
  }
  const code = normaliseModuleSyntax(extracted);
  if (/^[ \t]*import[ \t]+(?!type\b)[\w*{]/m.test(code)) {
    return fail('syntax', `The sandbox has no modules: remove the import and use the global \`tools\` and \`mcp\` objects. ${HOW_TO}`);
  }
  const runnable = compiles(code) === null ? code : transpileTypeScript(code);
  if (runnable === null) {
    return fail('syntax', `Your code does not parse: ${syntaxProblem(code)}. Fix it and send the whole solve() again.`);
  }
  if (!SOLVE_DEF_RE.test(runnable)) return fail('no_solve', `Your code does not define solve(). ${HOW_TO}`);
  return { ok: true, code: runnable };
}

function fail(kind: SandboxError['kind'], message: string): PreparedCode {
  return { ok: false, error: { kind, message } };
}

/**
 * Compiles (never runs) the code as the body of a function, which is how the isolate runs it;
 * returns V8's complaint, or null when it parses.
 */
function compiles(code: string): string | null {
  try {
    new Script(`(function () {\n${code}\n})`, { filename: 'solve.js' });
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** TypeScript → JavaScript with esbuild, or null when it isn't valid TypeScript either. */
function transpileTypeScript(code: string): string | null {
  try {
    const out = transformSync(code, { loader: 'ts', target: 'es2022', logLevel: 'silent' }).code;
    return compiles(out) === null ? out : null;
  } catch {
    return null;
  }
}

interface EsbuildMessage {
  text: string;
  location: { line: number; column: number; lineText: string } | null;
}

/** Where and what the syntax error is: esbuild's message has line and column; V8's is the fallback. */
function syntaxProblem(code: string): string {
  try {
    transformSync(code, { loader: 'js', logLevel: 'silent' });
  } catch (err) {
    const first = (err as { errors?: EsbuildMessage[] }).errors?.[0];
    if (first?.location) {
      const { line, column, lineText } = first.location;
      return `line ${line}, column ${column + 1}: ${first.text} (in \`${lineText.trim().slice(0, 120)}\`)`;
    }
  }
  return compiles(code) ?? 'unknown syntax error';
}
