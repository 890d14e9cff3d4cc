// What went wrong with a reply or a run, in plain words for a person (one line each); the model gets model-messages.ts instead.
import type { BadValueReason } from '../model-messages.js';
import type { ReplyProblem, SandboxErrorKind } from './types.js';

/** Facts some diagnoses name. */
export interface DiagnosisFacts {
  language?: string;
  line?: number;
  problem?: string;
  functions?: string[];
  tools?: string[];
  imports?: string[];
  chars?: number;
  limit?: number;
}

/** Why a reply was refused before it ran. */
export function replyDiagnosis(problem: ReplyProblem, facts: DiagnosisFacts = {}): string {
  switch (problem) {
    case 'too_long':
      return `The reply was too long to run (${facts.chars} characters; the limit is ${facts.limit}).`;
    case 'empty':
      return 'The model sent an empty reply.';
    case 'unreadable':
      return `The reply could not be read (${facts.problem ?? 'unknown problem'}).`;
    case 'still_reasoning':
      return 'The reply ended while the model was still reasoning.';
    case 'no_code':
      return 'The model answered in words, without code to run or a final answer.';
    case 'python':
      return 'The model wrote Python; only JavaScript can run.';
    case 'other_language':
      return `The model wrote ${facts.language ?? 'another language'}, not JavaScript.`;
    case 'diff':
      return 'The model sent an edit (a diff) instead of the whole code.';
    case 'imports':
      return `The code imports modules (${(facts.imports ?? []).join(', ')}), which the sandbox does not have.`;
    case 'truncated':
      return 'The reply was cut off before the code was complete.';
    case 'unpaired_fence':
      return 'A stray ``` line split the code in two.';
    case 'syntax':
      return `The code has a syntax error${facts.line ? ` at line ${facts.line}` : ''}${facts.problem ? `: ${facts.problem}` : ''}.`;
    case 'no_solve':
      return facts.functions?.length
        ? `The code defines ${facts.functions.map((f) => `${f}()`).join(', ')} but no solve(), and none is clearly the one to run.`
        : 'The code has no solve() function to run.';
    case 'unknown_json':
      return 'The model sent JSON that is not a tool call.';
    case 'several_tool_calls':
      return `The model asked for ${facts.tools?.length ?? 'several'} tool calls at once as JSON (${(facts.tools ?? []).join(', ')}); only one can run that way.`;
  }
}

/** Why a run failed. `detail` is the error as the code saw it (e.g. "ReferenceError: x is not defined"). */
export function runDiagnosis(kind: SandboxErrorKind, detail: string, facts: { timeoutMs?: number; memoryMb?: number; maxToolCalls?: number } = {}): string {
  const what = oneLine(detail);
  switch (kind) {
    case 'runtime':
      return `The code failed: ${what}`;
    case 'tool_error':
      return `A tool call failed: ${what}`;
    case 'call_cap':
      return `The code made more tool calls than allowed (${facts.maxToolCalls ?? 'the limit'}).`;
    case 'timeout':
      return `The code did not finish in time (${facts.timeoutMs !== undefined ? `${facts.timeoutMs / 1000} s` : 'the time limit'}).`;
    case 'memory':
      return `The code ran out of memory (${facts.memoryMb ?? '?'} MB).`;
    case 'output_limit':
      return `The code returned too much text (${what} characters).`;
    case 'crash':
      return `The sandbox failed: ${what}`;
    default:
      return `The code could not run: ${what}`;
  }
}

const BAD_VALUE_DIAGNOSES: Record<BadValueReason, string> = {
  nothing: 'The code returned nothing (undefined).',
  null: 'The code returned null.',
  nan: 'The code returned NaN (a number computed from something that is not one).',
  object_text: 'The code returned "[object Object]" instead of the data.',
  empty: 'The code returned an empty result.',
  promise: 'The code returned an unfinished promise: a tool call was not awaited.',
};

/** Why a returned value is not a result. */
export function valueDiagnosis(reason: BadValueReason): string {
  return BAD_VALUE_DIAGNOSES[reason];
}

/** The code asked for another step on the last one. */
export function lastStepDiagnosis(): string {
  return 'The code asked for another step, but this was the last one.';
}

/** Cap on a detail quoted in a diagnosis, in characters. */
const MAX_DETAIL_CHARS = 200;

/** The text on one line (runs of white space made one space), cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max = MAX_DETAIL_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * The text up to the end of its first sentence, cut to `max` characters: what follows in a tool's error is often
 * advice written for the model ("Call it as tools.add({…})", "Do not call it again"), which a person is not shown.
 */
export function firstSentence(text: string, max = MAX_DETAIL_CHARS): string {
  const end = text.search(/[.!?](\s|$)/);
  const sentence = end >= 0 ? text.slice(0, end + 1) : text;
  return sentence.length <= max ? sentence : `${sentence.slice(0, max - 1)}…`;
}
