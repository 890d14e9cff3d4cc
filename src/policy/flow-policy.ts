// The flow policy: checked on the host before every call, from what the question has read so far and where the call goes.
import { describeDestination, destinationsOf, isGiven, type GivenPlaces } from './destinations.js';
import type { ResultLabels, ToolClass } from './tool-class.js';

/** What the policy says about one call. `ask`: only the user may allow it; `yesAllows` says whether `--yes` counts as asking. */
export type FlowVerdict =
  | { verdict: 'allow' }
  | { verdict: 'ask'; yesAllows: boolean; why: string }
  | { verdict: 'refuse'; why: string };

export interface FlowCall {
  /** `<server>.<tool>`, for calls that reach a place no argument names (a web search). */
  toolId: string;
  toolClass: ToolClass;
  args: Record<string, unknown>;
}

const ALLOW: FlowVerdict = { verdict: 'allow' };

/**
 * Decides one call, the planner being possibly fooled (DESIGN §3.11; Meta's "Rule of Two", FIDES):
 * - a read is always allowed;
 * - egress after private data was read, to a place the user did not name (question or `policy.destinations`), is
 *   refused: the host cannot see what the code put into the arguments, so any egress may carry that data;
 * - a write or egress after untrusted content was read, to a place the user did not name, needs the user
 *   (`--yes` does not count: the place came from text the tools read, not from the user);
 * - a write or egress after both untrusted content and private data were read needs the user (`--yes` counts);
 * - anything else is allowed (then the approval gate's own rules apply).
 * A read-only egress (reading a web page) after untrusted content alone is allowed: it carries nothing private.
 * `seen` is what the question's results were labelled so far, every step included.
 */
export function decideFlow(call: FlowCall, seen: ResultLabels, given: GivenPlaces): FlowVerdict {
  const { kind, writes } = call.toolClass;
  if (kind === 'read') return ALLOW;
  const places = destinationsOf(call.args, { paths: writes });
  // A call whose arguments name no place reaches the tool's own service (a search engine, a memory store).
  const notGiven = places.length === 0 ? (given.allowList.includes(call.toolId) ? [] : [call.toolId]) : places.filter((p) => !isGiven(p, given)).map(describeDestination);
  const where = notGiven.join(', ');
  if (kind === 'egress' && seen.private && notGiven.length > 0) {
    return { verdict: 'refuse', why: `this question has read private data, and the call would send to ${where}, which the user did not name` };
  }
  if (seen.untrusted && notGiven.length > 0 && writes) {
    return { verdict: 'ask', yesAllows: false, why: `after reading outside content, it would act on ${where}, which the user did not name` };
  }
  if (seen.untrusted && seen.private) {
    return { verdict: 'ask', yesAllows: true, why: 'it would act after this question read both outside content and private data' };
  }
  return ALLOW;
}
