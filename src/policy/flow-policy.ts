// The flow policy: checked on the host before every call, from what the question has read so far and where the call goes.
import { describeDestination, destinationsOf, isGiven, type Destination, type GivenPlaces } from './destinations.js';
import type { ResultLabels, ToolClass } from './tool-class.js';

/** What the policy says about one call. `ask`: only the user may allow it; `yesAllows` says whether `--yes` counts as asking. */
export type FlowVerdict =
  | { verdict: 'allow'; places: Destination[] }
  | { verdict: 'ask'; yesAllows: boolean; why: string; places: Destination[] }
  | { verdict: 'refuse'; why: string; places: Destination[] };

export interface FlowCall {
  server: string;
  /** `<server>.<tool>`, for calls that reach a place no argument names (a web search). */
  toolId: string;
  toolClass: ToolClass;
  args: Record<string, unknown>;
}

/** What the question has read, as the policy weighs it. */
export interface FlowState {
  seen: ResultLabels;
  /** Web addresses that appeared in what the question read, as their fetch would request them. */
  links: ReadonlySet<string>;
  /** Links followed so far after private data was read (each choice of link can say something). */
  linksFollowedAfterPrivate: number;
  /** Servers whose untrusted content the question read. */
  untrustedFrom: ReadonlySet<string>;
}

/**
 * Links from what was read that one question may follow without asking once it has read private data: a fooled plan
 * could pick among an attacker's many links to spell out a secret, so the number of picks is bounded.
 */
export const MAX_LINKS_FOLLOWED_AFTER_PRIVATE = 3;

/** True when the only text in `args` (at any depth) is `url` as written: numbers and flags may come with it. */
function onlyText(args: unknown, url: string, depth = 0): boolean {
  if (typeof args === 'string') {
    try {
      return new URL(args.trim()).href === url;
    } catch {
      return false;
    }
  }
  if (args === null || typeof args !== 'object') return true;
  if (depth > 4) return false;
  return Object.values(args).every((v) => onlyText(v, url, depth + 1));
}

/** Every place the call reaches: those its arguments name, the service its tool always reaches, or else the tool itself. */
export function placesOf(call: FlowCall): Destination[] {
  const places = destinationsOf(call.args, { paths: call.toolClass.writes });
  if (call.toolClass.reaches) places.push({ kind: 'host', value: call.toolClass.reaches });
  // A call whose arguments name no place reaches the tool's own service (a search engine, a memory store).
  return places.length > 0 ? places : [{ kind: 'other', value: call.toolId }];
}

/**
 * Decides one call, the planner being possibly fooled (DESIGN §3.11; Meta's "Rule of Two", FIDES, CaMeL):
 * - a read is always allowed;
 * - a place the user named (typed question, `policy.destinations`) may receive what the question read (CaMeL's rule);
 * - a link that appeared word for word in what the question read may be fetched, as a person clicking it would (not
 *   sent to: a call that writes gets no such pass; after private data, at most MAX_LINKS_FOLLOWED_AFTER_PRIVATE);
 * - egress to any other place after private data was read is refused: the host cannot see what the code put into
 *   the arguments, so any egress may carry that data;
 * - a write (or sending egress) to any other place after untrusted content was read needs the user, and `--yes` does
 *   not count: the place came from text the tools read, not from the user. A write that adds to its tool's own store
 *   (no place in its arguments: a database, a memory graph) after reading untrusted content from that same server
 *   alone is allowed: nothing flows between sources; one that may destroy there is asked about like any other;
 * - anything else is allowed (then the approval gate's own rules apply).
 */
export function decideFlow(call: FlowCall, state: FlowState, given: GivenPlaces): FlowVerdict {
  const { kind, writes } = call.toolClass;
  const places = placesOf(call);
  if (kind === 'read') return { verdict: 'allow', places };
  const named = (p: Destination) => isGiven(p, given) || (p.kind === 'other' && p.value === call.toolId && given.allowList.includes(call.toolId));
  const linkLeft = !state.seen.private || state.linksFollowedAfterPrivate < MAX_LINKS_FOLLOWED_AFTER_PRIVATE;
  // Only the link itself may go: any other text in the arguments (a header, a body, a query) could carry data.
  const clicked = (p: Destination) => !writes && linkLeft && p.url !== undefined && state.links.has(p.url) && onlyText(call.args, p.url);
  const notGiven = places.filter((p) => !named(p) && !clicked(p));
  if (notGiven.length === 0) return { verdict: 'allow', places };
  const where = notGiven.map(describeDestination).join(', ');
  if (kind === 'egress' && state.seen.private) {
    return { verdict: 'refuse', places, why: `this question has read private data, and the call would send to ${where}, which the user did not name` };
  }
  // Adding to a tool's own store after reading only that server moves nothing between sources; destroying there does not
  // pass (a planted "delete everything" is read from the same store it would empty).
  const placeless = notGiven.every((p) => p.kind === 'other' && p.value === call.toolId);
  const ownStore = placeless && !call.toolClass.destroys;
  if (state.seen.untrusted && writes && !(ownStore && [...state.untrustedFrom].every((s) => s === call.server))) {
    const what = placeless ? `change what ${call.server} keeps` : `act on ${where}, which the user did not name`;
    return { verdict: 'ask', yesAllows: false, places, why: `after reading outside content, it would ${what}` };
  }
  return { verdict: 'allow', places };
}
