// Sandbox errors as the model will read them: what went wrong and what to do instead.
import { runDiagnosis } from './diagnosis.js';
import type { WorkerErrorKind } from './protocol.js';
import type { SandboxError, SandboxLimits } from './types.js';

/** Facts the host knows about a failed run, beyond what the worker reported. */
export interface FailureContext {
  limits: SandboxLimits;
  /** Tools still waiting for an answer when the run ended. */
  pendingTools: string[];
  /** A call was refused because the cap was reached. */
  capHit: boolean;
  /** The last refused call's message, when the run was ended for calling on after refusals. */
  lastRefusal?: string;
}

const SANDBOX_GLOBALS = 'The sandbox has standard JavaScript plus `tools`, `mcp` and `console` only: no require, process, fetch, import(), timers or files.';

/** The SandboxError for a worker-reported failure kind and its detail text: the model's message, and the plain diagnosis for a person. */
export function sandboxError(kind: WorkerErrorKind, detail: string, ctx: FailureContext): SandboxError {
  const error = modelError(kind, detail, ctx);
  const { limits } = ctx;
  const shown = kind === 'cancelled' ? (ctx.lastRefusal ?? 'its calls were refused') : detail;
  return { ...error, diagnosis: runDiagnosis(error.kind, shown, { timeoutMs: limits.timeoutMs, memoryMb: limits.memoryMb, maxToolCalls: limits.maxToolCalls }) };
}

function modelError(kind: WorkerErrorKind, detail: string, ctx: FailureContext): SandboxError {
  const { limits } = ctx;
  const capMessage = `Tool-call limit reached: a plan may make at most ${limits.maxToolCalls} tool calls. Plan with fewer calls (compute locally what you can, combine steps) or return FURTHER_PROCESSING_REQUIRED with what you have.`;
  switch (kind) {
    case 'syntax':
      return { kind, message: `Your code does not parse: ${sentence(detail)} Fix it and send the whole solve() again.` };
    case 'no_solve':
      return { kind, message: 'Your code does not define solve() as a function. Write `async function solve() { … }` that returns the answer.' };
    case 'call_cap':
      return { kind, message: capMessage };
    case 'tool_error':
      if (ctx.capHit) return { kind: 'call_cap', message: capMessage };
      return { kind, message: `A tool call failed and solve() did not handle it. ${sentence(detail)} Check the tool name and arguments against the catalogue.` };
    case 'runtime':
      if (ctx.capHit) return { kind: 'call_cap', message: `${capMessage} solve() then failed with: ${detail}` };
      return { kind, message: `solve() threw ${sentence(detail)}${missingGlobalHint(detail)} Fix the code and try again.` };
    case 'timeout': {
      const waiting = ctx.pendingTools.length > 0 ? `; it was still waiting for ${ctx.pendingTools.join(', ')}` : '';
      return {
        kind,
        message: `solve() did not finish within ${seconds(limits.timeoutMs)} (the limit includes waiting for tool calls)${waiting}. Avoid endless loops and promises that never settle; make fewer, simpler calls.`,
      };
    }
    case 'memory':
      return { kind, message: `solve() ran out of memory (limit ${limits.memoryMb} MB). Do not build huge arrays, strings or objects; work with smaller data.` };
    case 'output_limit':
      return {
        kind,
        message: `solve() returned ${detail} characters; the limit is ${limits.maxOutputChars}. Return only the answer (e.g. "FINAL_ANSWER: …"), not raw data.`,
      };
    case 'cancelled':
      if (ctx.capHit) return { kind: 'call_cap', message: `${capMessage} solve() kept calling after the limit, so it was stopped.` };
      return { kind: 'tool_error', message: `solve() kept calling tools after its calls were refused, so it was stopped. Last refusal: ${ctx.lastRefusal ?? 'unknown'}` };
    case 'unavailable':
      return { kind, message: detail };
    case 'crash':
      return { kind, message: `The sandbox failed while running your code (${detail}). Simplify the code and try again.` };
  }
}

function missingGlobalHint(detail: string): string {
  return /ReferenceError: (require|process|fetch|setTimeout|setInterval|setImmediate|module|exports|Buffer|window|document|global|__dirname) is not defined/.test(detail) ||
    /import|Not supported/i.test(detail)
    ? ` ${SANDBOX_GLOBALS}`
    : '';
}

/** Ends the text with a full stop unless it already ends a sentence. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
