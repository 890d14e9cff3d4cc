// One question's guard around the tool caller: labels every result as it enters the host and puts each call to the flow policy first.
import type { OwnServerKind } from '../config/server-env.js';
import type { ApproveTool, CallOptions, ResourceReadResult, ToolCaller, ToolInfo, ToolResult } from '../mcp/types.js';
import { describeDestination, destinationsOf, givenPlaces, isGiven, type GivenPlaces } from './destinations.js';
import { decideFlow } from './flow-policy.js';
import { classifyTool, type ResultLabels, type ToolClass, type ToolClassOverride } from './tool-class.js';

/** The flow policy's settings: the profile's `policy` section and which servers are ours. */
export interface FlowPolicy {
  ownServers: ReadonlyMap<string, OwnServerKind>;
  /** Profile `policy.tools`: per-tool class overrides. */
  tools: Readonly<Record<string, ToolClassOverride>>;
  /** Profile `policy.destinations`: hosts, mail addresses, file paths or `<server>.<tool>` the user allows data to go to. */
  destinations: readonly string[];
  /** Profile `policy.strict`: earlier results reach the planner only as values a tool-less model extracted (quarantine.ts). */
  strict?: boolean;
}

/** Where one labelled value came from. */
export interface Provenance extends ResultLabels {
  server: string;
  tool: string;
  /** For an untrusted result, the web hosts and mail addresses its call's arguments named (where it came from). */
  places: string[];
}

/** What a resource read returns: the server decides, so it counts as untrusted and private. */
const UNKNOWN: ResultLabels = { untrusted: true, private: true };

/**
 * The caller a question's plans use. Every result is labelled where it crosses into the host (server, tool, untrusted,
 * private) and the labels accumulate over the whole question, so a result carried to the next step keeps them. Before
 * each call decideFlow() rules; a call it lets through still meets the approval gate of `caller`, and one it wants the
 * user for goes to that gate as a concern (no gate: refused, nobody can be asked).
 */
export class FlowGuard implements ToolCaller {
  /** Every labelled result, in arrival order. */
  readonly provenance: Provenance[] = [];
  private readonly seenSoFar: ResultLabels = { untrusted: false, private: false };
  private readonly given: GivenPlaces;
  /** Classes of the tools asked about, by `<server>.<tool>`, for labelling their results. */
  private readonly classes = new Map<string, ToolClass>();
  readonly readResource?: (uri: string, options?: CallOptions) => Promise<ResourceReadResult>;

  constructor(private readonly caller: ToolCaller, private readonly gate: ApproveTool | undefined, private readonly policy: FlowPolicy, question: string) {
    this.given = givenPlaces(question, policy.destinations);
    const reader = caller.readResource?.bind(caller);
    if (reader) {
      this.readResource = async (uri, options) => {
        // A web URI read through a server is egress like a fetch: after private data, only to a place the user named.
        const away = destinationsOf({ uri }, { paths: false }).filter((d) => !isGiven(d, this.given));
        if (this.seenSoFar.private && away.length > 0) {
          throw new Error(`the data-flow policy refused it: this question has read private data, and reading ${uri.slice(0, 200)} would reach ${away.map(describeDestination).join(', ')}, which the user did not name. ${DO_NOT_RETRY}`);
        }
        const read = await reader(uri, options);
        this.label(read.server, 'mcp.read_resource', UNKNOWN, [uri.slice(0, 200)]);
        return read;
      };
    }
  }

  /** What the question has read so far. */
  seen(): ResultLabels {
    return { ...this.seenSoFar };
  }

  async callTool(server: string, tool: string, args: Record<string, unknown>, options?: CallOptions): Promise<ToolResult> {
    const result = await this.caller.callTool(server, tool, args, options);
    // A tool never asked about (no class known) is labelled as the most sensitive kind.
    const labels = this.classes.get(`${server}.${tool}`)?.returns ?? UNKNOWN;
    // Where it came from matters only for what anyone could have written (cautionFor); a plan may make hundreds of calls.
    this.label(server, tool, labels, labels.untrusted ? destinationsOf(args, { paths: false }).map(describeDestination) : []);
    return result;
  }

  readonly approve: ApproveTool = async (tool: ToolInfo, args, options) => {
    const toolClass = classifyTool(tool, { ownServers: this.policy.ownServers, overrides: this.policy.tools });
    const toolId = `${tool.server}.${tool.remoteName}`;
    this.classes.set(toolId, toolClass);
    const verdict = decideFlow({ toolId, toolClass, args }, this.seenSoFar, this.given);
    const gate = this.gate;
    if (verdict.verdict === 'refuse') return { approved: false, reason: `the data-flow policy refused it: ${verdict.why}. ${DO_NOT_RETRY}` };
    if (verdict.verdict === 'ask') {
      if (!gate) return { approved: false, reason: `${verdict.why}, so it needs the user's approval, and nobody can be asked. ${DO_NOT_RETRY}` };
      return gate(tool, args, { ...options, concern: { why: verdict.why, yesAllows: verdict.yesAllows } });
    }
    return gate ? gate(tool, args, options) : { approved: true };
  };

  private label(server: string, tool: string, labels: ResultLabels, places: string[]): void {
    if (this.provenance.length < MAX_PROVENANCE) this.provenance.push({ server, tool, ...labels, places });
    this.seenSoFar.untrusted ||= labels.untrusted;
    this.seenSoFar.private ||= labels.private;
  }
}

/** Results kept on the record (their labels always count, whatever the number of calls). */
const MAX_PROVENANCE = 500;

/**
 * What a person should know of an answer drawn on untrusted content (a page, a mail, a document): where it came
 * from, in one sentence; null when the question read none. The host cannot tell whether such text changed the answer.
 */
export function cautionFor(provenance: readonly Provenance[]): string | null {
  const untrusted = provenance.filter((p) => p.untrusted);
  if (untrusted.length === 0) return null;
  const tools = [...new Set(untrusted.map((p) => `${p.server}.${p.tool}`))];
  const places = [...new Set(untrusted.flatMap((p) => p.places))];
  const shown = (list: string[], max: number) => (list.length > max ? `${list.slice(0, max).join(', ')} and ${list.length - max} more` : list.join(', '));
  const from = places.length > 0 ? `${shown(places, 3)}, read by ${shown(tools, 3)}` : shown(tools, 3);
  return `Drawn from ${from}: text written outside Cortex-R, which can mislead the model; check it before acting on it.`;
}

const DO_NOT_RETRY = 'Do not retry it or send the data another way; finish the task without it and say what was not done.';
