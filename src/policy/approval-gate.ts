// The approval gate: asks the user before a tool that needs it runs, remembers "always", refuses when nobody can answer.
import type { LoadedConfig } from '../config/load-config.js';
import { needsApproval, ownServerIds, type ApprovalPolicy } from './approval-policy.js';
import type { ApprovalDecision, ApproveTool, AskApproval, FlowConcern } from '../mcp/types.js';
import { alwaysKey, approvalQuestion } from './approval-question.js';
import { knownServerKinds } from './flow-settings.js';
import { trustFileOf, updateTrust } from './trust-store.js';

/** Asks the user one question; resolves their answer, or null when none can come (input closed, run ended). */
export type AskUser = (question: string, signal: AbortSignal) => Promise<string | null>;

/** Unclear answers re-asked before the call is refused, so a stuck input can't loop. */
const MAX_QUESTIONS_PER_CALL = 3;

export interface ApprovalGateOptions {
  policy: ApprovalPolicy;
  /** How to ask; absent when cortex is not interactive (then calls that need approval are refused). */
  ask?: AskUser;
  /** Keeps the person's "always" or "never" about a tool nothing classes (trust-store.ts), for later sessions too. */
  remember?: (entry: string, list: 'trusted' | 'never') => Promise<void>;
}

/** An ApproveTool that also hears when a new question starts (a "no" holds until then). */
export type ApprovalGate = ApproveTool & {
  /** Forgets the refusals of the previous question ("always" answers stay for the session). */
  newQuestion(): void;
};

/**
 * The gate for one session (REPL or `ask`). Calls that need approval (needsApproval()) are asked about
 * one at a time: "y" runs this call, "a" (always) runs this tool for the rest of the session, "n" or an
 * empty line refuses it and every later call of that tool until the next question (the model's retries
 * do not ask again). Without `ask`, the call's `askPerson` (the page) is asked yes or no; with neither, they are refused
 * with a message saying how to allow them.
 */
export function createApprovalGate({ policy, ask, remember }: ApprovalGateOptions): ApprovalGate {
  const always = new Set<string>();
  const declined = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();
  const gate: ApproveTool = (tool, args, { signal, concern, context = concern, askPerson, onWaitingForUser }) => {
    // The flow policy's concerns are asked even about tools the lists allow; `--yes` answers only those it may.
    if (concern ? policy.allowAll && concern.yesAllows : !needsApproval(tool, policy)) return Promise.resolve(APPROVED);
    // "always" covers this tool to these places: the next call may go somewhere else.
    const key = `${concern ? 'flow:' : ''}${alwaysKey(tool, context)}`;
    if (always.has(key)) return Promise.resolve(APPROVED);
    if (declined.has(key)) return Promise.resolve(refused(DECLINED));
    if (!ask && !askPerson) return Promise.resolve(refused(concern ? notInteractiveFlow(concern) : NOT_INTERACTIVE));
    // From here the answer is a person's: the run's clock stands still until it comes, also while waiting a turn.
    const answered = onWaitingForUser?.();
    // One question at a time: calls made in parallel wait their turn, and an "always" answers those behind it.
    const turn = queue.then(async (): Promise<ApprovalDecision> => {
      if (always.has(key)) return APPROVED;
      if (declined.has(key)) return refused(DECLINED);
      const question = approvalQuestion(tool, args, concern, context);
      // The session's terminal first; else the question's own person (the page), who is offered yes or no only, since
      // an "always" would hold for every question the server answers.
      const trustKey = concern?.trustKey;
      const answer = ask ? await askAtTerminal(ask, question, trustKey ? `${trustKey}, from now on` : `${alwaysKey(tool, context)}, this session`, signal, Boolean(trustKey)) : await askPerson!(question, signal);
      if (answer === true || answer === 'always') {
        if (answer === 'always') always.add(key);
        // About a tool nothing classes, "always" is the person's word that it only reads: kept for later sessions.
        if (answer === 'always' && trustKey) await remember?.(trustKey, 'trusted').catch(() => undefined);
        return APPROVED;
      }
      if (answer === 'never' && trustKey) await remember?.(trustKey, 'never').catch(() => undefined);
      declined.add(key);
      return refused(answer === false ? DECLINED : 'the user gave no answer; do not call it again for this task.');
    });
    queue = turn.catch(() => undefined);
    return answered ? turn.finally(answered) : turn;
  };
  return Object.assign(gate, { newQuestion: () => declined.clear() });
}

/** Asks on the terminal until the answer is clear (at most MAX_QUESTIONS_PER_CALL times): yes, no, always, or null. */
async function askAtTerminal(ask: AskUser, question: string, always: string, signal: AbortSignal, offerNever = false): Promise<boolean | 'always' | 'never' | null> {
  for (let i = 0; i < MAX_QUESTIONS_PER_CALL; i++) {
    if (signal.aborted) break;
    const choices = `[y]es / [N]o / [a]lways (${always})${offerNever ? ' / ne[v]er' : ''}: `;
    const answer = (await ask(`${question}\n${choices}`, signal))?.trim().toLowerCase();
    if (offerNever && (answer === 'v' || answer === 'never')) return 'never';
    if (answer === undefined) break;
    if (answer === 'y' || answer === 'yes') return true;
    if (answer === 'a' || answer === 'always') return 'always';
    if (answer === '' || answer === 'n' || answer === 'no') return false;
  }
  return null;
}

/** `approve`, asking `askPerson` (the person behind one question: the page, an MCP client) when the call brings no one of its own. */
export function askingPerson(approve: ApproveTool, askPerson: AskApproval): ApproveTool {
  return (tool, args, options) => approve(tool, args, { askPerson, ...options });
}

const DECLINED = 'the user declined it; do not call it again for this task.';

const APPROVED: ApprovalDecision = { approved: true };

const NOT_INTERACTIVE =
  "it needs the user's approval (it may change or delete data) and nobody can be asked: cortex is not running interactively. Do not call it again for this task. (The user can allow it with --yes or the profile's approvals.allow.)";

function notInteractiveFlow({ why, yesAllows, trustKey }: FlowConcern): string {
  const named = 'naming the destination in the question or in the profile\'s policy.destinations';
  const how = trustKey ? `${named}, or with \`cortex servers trust ${trustKey.replace('.', ' ')}\`` : yesAllows ? `${named.replace(' or in', ', in')}, or --yes` : named;
  return `${why}, so it needs the user's approval, and nobody can be asked: cortex is not running interactively. Do not call it again for this task or send the data another way. (The user can allow it by ${how}.)`;
}

function refused(reason: string): ApprovalDecision {
  return { approved: false, reason };
}

/** The approval gate of a config's `approvals` (and `--yes`), asking through `ask` when someone can answer. */
export function approvalGateFor(config: Pick<LoadedConfig, 'profile' | 'servers' | 'profileFile'>, { yes, ask }: { yes?: boolean | undefined; ask?: AskUser | undefined }): ApprovalGate {
  const { approvals } = config.profile;
  return createApprovalGate({
    policy: { require: approvals.require, allow: approvals.allow, allowAll: Boolean(yes), ownServers: ownServerIds(config.servers), knownServers: knownServerKinds(config.servers) },
    ...(ask ? { ask } : {}),
    remember: async (entry, list) => void (await updateTrust(trustFileOf(config.profileFile), list, entry, true)),
  });
}
