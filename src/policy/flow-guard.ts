// One question's guard around the tool caller: labels every result as it enters the host and puts each call to the flow policy first.
import type { OwnServerKind } from '../config/server-env.js';
import { RESOURCE_READER, type ApproveTool, type CallOptions, type ResourceReadResult, type ToolCaller, type ToolInfo, type ToolResult } from '../mcp/types.js';
import { addGivenText, describeDestination, givenPlaces, isGiven, linksIn, urlDestination, type GivenPlaces } from './destinations.js';
import { decideFlow, type FlowState } from './flow-policy.js';
import type { KnownServerKind } from './known-servers.js';
import { sourcesOf } from './sources.js';
import { matchesEntry } from './approval-policy.js';
import { classifyTool, type ResultLabels, type ToolClass, type ToolClassOverride } from './tool-class.js';

/** The flow policy's settings: the profile's `policy` section and what the host knows of the servers. */
export interface FlowPolicy {
  ownServers: ReadonlyMap<string, OwnServerKind>;
  /** Third-party servers known by package (known-servers.ts), by id. */
  knownServers?: ReadonlyMap<string, KnownServerKind>;
  /** Profile `policy.tools`: per-tool class overrides. */
  tools: Readonly<Record<string, ToolClassOverride>>;
  /** Tools whose results the user declared trusted (`cortex servers trust`), as approvals entries. */
  trusted?: readonly string[];
  /** Tools the user said never to run (`cortex servers trust --never`, or "never" when asked). */
  never?: readonly string[];
  /** Profile `policy.destinations`: hosts, mail addresses, file paths or `<server>.<tool>` the user allows data to go to. */
  destinations: readonly string[];
  /** Profile `policy.strict`: text from outside reaches the planner only as values a tool-less model extracted. */
  strict?: boolean;
}

/** Where one labelled value came from. */
export interface Provenance extends ResultLabels {
  server: string;
  tool: string;
  /** For untrusted content, what a person would call its sources: pages, files, mails (sender and subject). */
  places: string[];
}

/** What one question sent or wrote where, for the person (listed under the answer). */
export interface Sent {
  tool: string;
  to: string[];
}

/** What a resource read returns: the server decides, so it counts as untrusted and private. */
const UNKNOWN: ResultLabels = { untrusted: true, private: true };
/** Results kept on the record (their labels always count, whatever the number of calls). */
const MAX_PROVENANCE = 500;
/** Links remembered from what the question read (decision 2: such a link may be fetched). */
const MAX_LINKS_REMEMBERED = 5_000;
/** Links taken from one result. */
const MAX_LINKS_PER_RESULT = 500;
/** Text of one result scanned for links, in characters. */
const MAX_TEXT_SCANNED_CHARS = 500_000;

/**
 * The caller a question's plans use. Every result, and every error a tool raises, is labelled where it crosses into
 * the host (server, tool, untrusted, private) and the labels accumulate over the whole question, so a result carried
 * to the next step keeps them; labels of what the question was given (earlier answers of the session, piped text) are
 * on the record from the start. Before each call decideFlow() rules; a call it lets through still meets `gate` (the
 * approval gate), and one it wants the user for goes to `gate` as a concern (no gate: refused, nobody can be asked).
 */
export class FlowGuard implements ToolCaller {
  /** Every labelled result, in arrival order. */
  readonly provenance: Provenance[] = [];
  /** Calls that wrote or sent after the question read something, and where to. */
  readonly sent: Sent[] = [];
  private readonly seenSoFar: ResultLabels = { untrusted: false, private: false };
  private readonly links = new Set<string>();
  /** Servers (and `session`, `you` for what the question was given) whose untrusted content was read. */
  private readonly untrustedFrom = new Set<string>();
  private linksFollowedAfterPrivate = 0;
  private readonly given: GivenPlaces;
  /** Classes of the tools asked about, by `<server>.<tool>`, for labelling their results. */
  private readonly classes = new Map<string, ToolClass>();
  readonly readResource?: (uri: string, options?: CallOptions) => Promise<ResourceReadResult>;

  /** `question`: the words the user typed, the only text that names places; `given`: what came with it, already labelled. */
  constructor(private readonly caller: ToolCaller, private readonly gate: ApproveTool | undefined, private readonly policy: FlowPolicy, question: string, given: readonly Provenance[] = []) {
    this.given = givenPlaces(question, policy.destinations);
    for (const p of given) this.label(p.server, p.tool, p, p.places);
    const reader = caller.readResource?.bind(caller);
    if (reader) {
      this.readResource = async (uri, options) => {
        const read = await reader(uri, options).catch((err: unknown) => {
          this.label('mcp', 'read_resource', UNKNOWN, [uri.slice(0, 200)]);
          throw err;
        });
        this.label(read.server, 'read_resource', UNKNOWN, [uri.slice(0, 200)]);
        this.remember(read.contents.map((c) => c.text ?? '').join('\n'));
        return read;
      };
    }
  }

  /**
   * An answer the person gave a plan's `ask_user()`: words they typed name places as the question does. A choice
   * they picked does not: its words are the plan's, which text the plan read may have written.
   */
  userAnswered(answer: string, choices?: readonly string[]): void {
    if (choices?.includes(answer)) return;
    addGivenText(this.given, answer);
  }

  /** What the question has read so far. */
  seen(): ResultLabels {
    return { ...this.seenSoFar };
  }

  async callTool(server: string, tool: string, args: Record<string, unknown>, options?: CallOptions): Promise<ToolResult> {
    // A tool never asked about (no class known) is labelled as the most sensitive kind.
    const labels = this.classes.get(`${server}.${tool}`)?.returns ?? UNKNOWN;
    let result: ToolResult;
    try {
      result = await this.caller.callTool(server, tool, args, options);
    } catch (err) {
      // A tool's error is its text too: a server may put anything in it.
      this.label(server, tool, labels, labels.untrusted ? sourcesOf(args, null) : []);
      if (this.policy.strict && labels.untrusted) throw new Error(WITHHELD_ERROR);
      throw err;
    }
    // Where it came from matters only for what anyone could have written (cautionFor); a plan may make hundreds of calls.
    this.label(server, tool, labels, labels.untrusted ? sourcesOf(args, result) : []);
    this.remember(resultText(result));
    if (this.policy.strict && labels.untrusted && result.isError) return { content: [{ type: 'text', text: WITHHELD_ERROR }], isError: true };
    return result;
  }

  readonly approve: ApproveTool = async (tool: ToolInfo, args, options) => {
    const toolClass = tool === RESOURCE_READER ? this.resourceClass(String(args.uri ?? '')) : classifyTool(tool, { ...this.policy, overrides: this.policy.tools });
    const toolId = `${tool.server}.${tool.remoteName}`;
    this.classes.set(toolId, toolClass);
    if (this.policy.never?.some((entry) => matchesEntry(tool, entry))) return { approved: false, reason: `the user said never to run ${toolId}. ${DO_NOT_RETRY}` };
    const state: FlowState = { seen: this.seen(), links: this.links, linksFollowedAfterPrivate: this.linksFollowedAfterPrivate, untrustedFrom: this.untrustedFrom };
    const verdict = decideFlow({ server: tool.server, toolId, toolClass, args }, state, this.given);
    // The tool's own store (a place no argument names) goes without saying in the question.
    const context = { destinations: verdict.places.filter((p) => p.kind !== 'other' || p.value !== toolId).map(describeDestination), holds: this.holds() };
    if (verdict.verdict === 'allow') {
      const decision = this.gate ? await this.gate(tool, args, { ...options, context }) : ({ approved: true } as const);
      if (decision.approved) this.record(toolId, toolClass, verdict.places);
      return decision;
    }
    // A tool nothing classes counts as egress; with someone to ask, the person may say what it is (once, always, never).
    const unknown = toolClass.unclassified === true && this.gate !== undefined;
    if (verdict.verdict === 'refuse' && !unknown) return { approved: false, reason: `the data-flow policy refused it: ${verdict.why}. ${DO_NOT_RETRY}` };
    const why = unknown ? `${toolId} does not say what it does, so Cortex-R treats it as sending data out, and ${verdict.why}` : verdict.why;
    if (!this.gate) return { approved: false, reason: `${why}, so it needs the user's approval, and nobody can be asked. ${DO_NOT_RETRY}` };
    const yesAllows = verdict.verdict === 'ask' && verdict.yesAllows && !unknown;
    const decision = await this.gate(tool, args, { ...options, concern: { why, yesAllows, ...context, ...(unknown ? { trustKey: toolId } : {}) } });
    if (decision.approved) this.record(toolId, toolClass, verdict.places);
    return decision;
  };

  /** A resource read reaches what its URI names: a web address is egress there, any other scheme a place of its own. */
  private resourceClass(uri: string): ToolClass {
    const place = urlDestination(uri, true);
    // A URI the user gave or one that appeared in what was read is read from the server that listed it.
    const local = !place || isGiven(place, this.given) || (place.url !== undefined && this.links.has(place.url));
    return { kind: local ? 'read' : 'egress', writes: false, returns: UNKNOWN };
  }

  /** Keeps what was sent where once the question holds something, and counts links followed after private data. */
  private record(toolId: string, toolClass: ToolClass, reached: ReturnType<typeof decideFlow>['places']): void {
    if (toolClass.kind === 'read') return;
    const places = reached.filter((p) => p.kind !== 'other' || p.value !== toolId);
    if (this.seenSoFar.private && !toolClass.writes && places.some((p) => p.url !== undefined && this.links.has(p.url) && !isGiven(p, this.given))) {
      this.linksFollowedAfterPrivate++;
    }
    if ((this.seenSoFar.private || this.seenSoFar.untrusted) && this.sent.length < MAX_PROVENANCE && (toolClass.writes || this.seenSoFar.private)) {
      this.sent.push({ tool: toolId, to: places.map(describeDestination) });
    }
  }

  /** What the question holds, in words for the approval question: private data and outside content, with their sources. */
  private holds(): string[] {
    const held: string[] = [];
    const named = (pick: (p: Provenance) => boolean) => [...new Set(this.provenance.filter(pick).flatMap((p) => (p.places.length > 0 ? p.places : [`${p.server}.${p.tool}`])))].slice(0, 3);
    if (this.seenSoFar.private) held.push(`private data (${named((p) => p.private).join(', ')})`);
    if (this.seenSoFar.untrusted) held.push(`text written outside Cortex-R (${named((p) => p.untrusted).join(', ')})`);
    return held;
  }

  private remember(text: string): void {
    if (this.links.size >= MAX_LINKS_REMEMBERED) return;
    for (const link of linksIn(text.slice(0, MAX_TEXT_SCANNED_CHARS), MAX_LINKS_PER_RESULT)) {
      if (this.links.size >= MAX_LINKS_REMEMBERED) break;
      this.links.add(link);
    }
  }

  private label(server: string, tool: string, labels: ResultLabels, places: string[]): void {
    if (this.provenance.length < MAX_PROVENANCE) this.provenance.push({ server, tool, untrusted: labels.untrusted, private: labels.private, places });
    this.seenSoFar.untrusted ||= labels.untrusted;
    if (labels.untrusted) this.untrustedFrom.add(server);
    this.seenSoFar.private ||= labels.private;
  }
}

/** A result's text as the plan sees it: text parts and structured content. */
function resultText(result: ToolResult): string {
  const texts = (Array.isArray(result.content) ? result.content : []).map((part) => (typeof part.text === 'string' ? part.text : ''));
  if (result.structuredContent) texts.push(JSON.stringify(result.structuredContent));
  return texts.join('\n');
}

/**
 * What a person should know of an answer drawn on untrusted content (a page, a mail, a document): where it came
 * from, in one sentence; null when the question read none. The host cannot tell whether such text changed the answer.
 */
export function cautionFor(provenance: readonly Provenance[]): string | null {
  const untrusted = provenance.filter((p) => p.untrusted);
  if (untrusted.length === 0) return null;
  const places = [...new Set(untrusted.flatMap((p) => p.places))];
  const unnamed = [...new Set(untrusted.filter((p) => p.places.length === 0).map((p) => `what ${p.server} returned`))];
  const shown = (list: string[], max: number) => (list.length > max ? `${list.slice(0, max).join(', ')} and ${list.length - max} more` : list.join(', '));
  return `Drawn from ${shown([...places, ...unnamed], 4)}: text written outside Cortex-R, which can mislead the model; check it before acting on it.`;
}

const DO_NOT_RETRY = 'Do not retry it or send the data another way; finish the task without it and say what was not done.';
/** What the planner sees of a tool's error in strict mode: the text came from outside. */
const WITHHELD_ERROR = 'The tool reported an error; its text came from outside Cortex-R and is withheld in strict mode. Try other arguments or finish without it.';
