// Judging a sandbox result as an outcome, and saying what was tried when giving up.
import { oneLine, runDiagnosis, valueDiagnosis } from '../sandbox/diagnosis.js';
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

function describeAttempt(record: AgentStepRecord): string {
  const tools = record.tool_calls.length ? record.tool_calls.map((c) => `${c.name}${c.ok ? '' : ' (failed)'}`).join(', ') : 'no tool calls';
  const what =
    record.outcome === 'further_processing' ? 'needed further processing' : record.outcome === 'final_answer' ? 'answered' : record.diagnosis ?? record.outcome;
  return oneLine(`step ${record.step}, lifelines left ${record.lifeline} (${record.strategy}; ${tools}): ${what}`, MAX_REASON_ATTEMPT_CHARS);
}

/** Why the run gave up, and every attempt made, bounded. */
export function giveUpReason({
  steps,
  cause,
}: {
  steps: AgentStepRecord[];
  /** 'lifelines': a step failed on every lifeline; 'steps': max_steps passed without a final answer. */
  cause: { kind: 'lifelines'; step: number } | { kind: 'steps'; maxSteps: number; lastResult: string | null };
}): string {
  const head =
    cause.kind === 'lifelines'
      ? `No answer: step ${cause.step} failed on every lifeline.`
      : `No answer within ${cause.maxSteps} step${cause.maxSteps === 1 ? '' : 's'}.` +
        (cause.lastResult !== null ? ` Last result: ${oneLine(cause.lastResult, MAX_REASON_ATTEMPT_CHARS)}` : '');
  const text = [head, 'Tried:', ...steps.map((s) => `- ${describeAttempt(s)}`)].join('\n');
  return text.length <= MAX_REASON_CHARS ? text : `${text.slice(0, MAX_REASON_CHARS - 1)}…`;
}
