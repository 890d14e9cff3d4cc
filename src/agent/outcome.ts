// Judging a sandbox result as an outcome, and saying what was tried when giving up.
import { firstSentence, oneLine, runDiagnosis, valueDiagnosis } from '../sandbox/diagnosis.js';
import type { SandboxResult } from '../sandbox/types.js';
import type { AgentStepRecord } from './types.js';
import { badValue, type BadValueReason } from '../model-messages.js';

/** Cap on each attempt's line in a give-up reason, and on the whole reason. */
const MAX_REASON_ATTEMPT_CHARS = 300;
const MAX_REASON_CHARS = 3_000;
/** How much of a refused return value the feedback quotes. */
const MAX_BAD_VALUE_PREVIEW_CHARS = 300;

const FINAL_ANSWER_PREFIX = /^\s*FINAL_ANSWER\s*:/;
const FURTHER_PROCESSING_PREFIX = /^\s*FURTHER_PROCESSING_REQUIRED\s*:/;

/**
 * What one sandbox run means for the loop. On failure, `error` is written for the model (it goes
 * into the retry prompt); `diagnosis` says the same in plain words for a person, and `problem` names
 * the kind (a ReplyProblem when the reply was refused before running, a BadValueReason for a refused
 * value, else the sandbox error kind).
 */
export type PlanOutcome =
  | { kind: 'final_answer'; answer: string }
  | { kind: 'further_processing'; result: string }
  | { kind: 'invalid_plan'; error: string; problem: string; diagnosis: string }
  | { kind: 'sandbox_error'; error: string; errorKind: string; problem: string; diagnosis: string; refusedBeforeRunning: boolean };

/** Texts that mean the code lost its value on the way: never a result. */
const NONSENSE: Record<string, BadValueReason> = { undefined: 'nothing', null: 'null', nan: 'nan', '': 'empty', '{}': 'empty', '[]': 'empty', '""': 'empty' };

/** Why a result text is not a result, or null when it is one. */
function badValueReason(text: string): BadValueReason | null {
  const t = text.trim();
  if (t.includes('[object Promise]')) return 'promise';
  if (t.includes('[object Object]')) return 'object_text';
  return NONSENSE[t.toLowerCase()] ?? null;
}

/**
 * Judges a sandbox result (the rule the README states): the text after FINAL_ANSWER: is the answer
 * and the text after FURTHER_PROCESSING_REQUIRED: goes to the next step; a value with neither
 * prefix is the answer, since the model asked for no further step. Whatever the prefix, a value
 * that is undefined, null, NaN, empty or holds "[object Object]" is an invalid plan fed back to the
 * model (its code is in the retry prompt), never a result handed on.
 */
export function classifyResult(result: SandboxResult): PlanOutcome {
  if (!result.ok) {
    const { kind, message, problem, diagnosis } = result.error;
    return {
      kind: 'sandbox_error',
      error: `${kind}: ${message}`,
      errorKind: kind,
      problem: problem ?? kind,
      // Sandboxes other than ours may give no diagnosis: never fall back on the model's message.
      diagnosis: diagnosis ?? runDiagnosis(kind, 'no details given'),
      refusedBeforeRunning: problem !== undefined,
    };
  }
  const value = result.value;
  const final = FINAL_ANSWER_PREFIX.test(value);
  const further = !final && FURTHER_PROCESSING_PREFIX.test(value);
  const payload = (final ? value.replace(FINAL_ANSWER_PREFIX, '') : further ? value.replace(FURTHER_PROCESSING_PREFIX, '') : value).trim();
  const reason = badValueReason(payload);
  if (reason) {
    const shown = value.length > MAX_BAD_VALUE_PREVIEW_CHARS ? `${value.slice(0, MAX_BAD_VALUE_PREVIEW_CHARS)}…` : value;
    return { kind: 'invalid_plan', error: badValue({ returned: shown, reason }), problem: reason, diagnosis: valueDiagnosis(reason) };
  }
  return further ? { kind: 'further_processing', result: payload } : { kind: 'final_answer', answer: payload };
}

/** Longest quote of the question in a give-up reason. */
const MAX_QUESTION_CHARS = 120;

/** One attempt in plain words: `step 1, try 2 (used add, multiply (failed)): The code did not finish in time (5 s).` */
function describeAttempt(record: AgentStepRecord, tryNo: number): string {
  const tools = record.tool_calls.length ? `used ${record.tool_calls.map((c) => `${c.name}${c.ok ? '' : ' (failed)'}`).join(', ')}` : 'no tool calls';
  const what =
    record.outcome === 'further_processing' ? 'passed a result to the next step' : record.outcome === 'final_answer' ? 'answered' : record.diagnosis ? firstSentence(record.diagnosis, MAX_REASON_ATTEMPT_CHARS) : 'the plan did not work';
  return oneLine(`step ${record.step}, try ${tryNo} (${tools}): ${what}`, MAX_REASON_ATTEMPT_CHARS);
}

/**
 * What a person could do next: check a server whose call failed on the last try; for a question that ran out of steps,
 * more steps or a smaller question; else other words or a larger model.
 */
function nextHint(last: AgentStepRecord | undefined, outOfSteps: boolean): string {
  const failedServers = [...new Set((last?.tool_calls ?? []).filter((c) => !c.ok && c.server).map((c) => c.server!))];
  if (failedServers.length > 0) {
    const named = failedServers.map((s) => `"${s}"`).join(', ');
    return `check the server${failedServers.length === 1 ? '' : 's'} ${named} (cortex servers test ${failedServers[0]}), then ask again; or rephrase the question.`;
  }
  if (outOfSteps) return 'split the question into smaller ones, allow more steps (strategy.max_steps in the profile), or use a larger model (--model).';
  return 'ask again in other words (say what you want more exactly), or use a larger model (--model).';
}

/**
 * Why the run gave up, in words for the person who asked (nothing written for the model): the question, what went
 * wrong last, every attempt, and what to try next; bounded by MAX_REASON_CHARS.
 */
export function giveUpReason({
  question,
  steps,
  cause,
}: {
  /** The question as the person typed it. */
  question: string;
  steps: AgentStepRecord[];
  /** 'retries': a step failed on its every try; 'steps': max_steps passed without a final answer. */
  cause: { kind: 'retries'; step: number } | { kind: 'steps'; maxSteps: number; lastResult: string | null };
}): string {
  const asked = `"${oneLine(question, MAX_QUESTION_CHARS)}"`;
  const tries = steps.filter((s) => cause.kind === 'retries' && s.step === cause.step).length;
  const head =
    cause.kind === 'retries'
      ? `No answer to ${asked}: step ${cause.step} failed on all ${tries} ${tries === 1 ? 'try' : 'tries'}, with no retries left.`
      : `No answer to ${asked} within ${cause.maxSteps} step${cause.maxSteps === 1 ? '' : 's'}.` +
        (cause.lastResult !== null ? ` The last step's result was: ${oneLine(cause.lastResult, MAX_REASON_ATTEMPT_CHARS)}` : '');
  const last = steps.at(-1);
  const wentWrong = last?.diagnosis ? [`What went wrong last: ${oneLine(firstSentence(last.diagnosis, MAX_REASON_ATTEMPT_CHARS), MAX_REASON_ATTEMPT_CHARS)}`] : [];
  const perStep = new Map<number, number>();
  const attempts = steps.map((s) => {
    const n = (perStep.get(s.step) ?? 0) + 1;
    perStep.set(s.step, n);
    return `- ${describeAttempt(s, n)}`;
  });
  const hint = `To try: ${nextHint(last, cause.kind === 'steps')}`;
  const body = [head, ...wentWrong, 'Tries:', ...attempts].join('\n');
  // The hint is what a person acts on: it stays whole when the list of tries is cut.
  const room = MAX_REASON_CHARS - hint.length - 1;
  return `${body.length <= room ? body : `${body.slice(0, room - 1)}…`}\n${hint}`;
}
