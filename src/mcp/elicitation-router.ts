// Routes a server's request for input to the question whose tool call made it, when servers are shared by questions.
import { NOBODY_TO_ASK, type Elicit, type ElicitationAnswer } from './elicitation.js';
import type { ToolCaller } from './types.js';

/**
 * Told to a server asking while two questions are calling it at once: MCP does not say which call a request
 * belongs to, so neither person is shown a form that may be the other's.
 */
export const TWO_QUESTIONS_ASKING = 'Two questions are using this server at the same time and Cortex-R cannot tell which one is asking, so it declines rather than show the request to the wrong person.';

/** One running question: who answers its servers' requests (absent: nobody), and its tool calls in flight by server. */
interface Question {
  elicit?: Elicit;
  inFlight: Map<string, number>;
}

/** What a running question holds: its caller (tracking its calls) and done() when it ends. */
export interface RoutedQuestion {
  caller: ToolCaller;
  done(): void;
}

/**
 * The one Elicit given to every server connection (`elicit`), and per question a caller that records which servers
 * that question is calling. A request from server S goes to the one question with a call in flight to S; with none,
 * or a question nobody can answer for, it is declined with NOBODY_TO_ASK; with two or more, with TWO_QUESTIONS_ASKING.
 */
export class ElicitationRouter {
  private readonly questions = new Set<Question>();

  readonly elicit: Elicit = async (request, options): Promise<ElicitationAnswer> => {
    const asking = [...this.questions].filter((q) => (q.inFlight.get(request.server) ?? 0) > 0);
    if (asking.length > 1) return { action: 'decline', reason: TWO_QUESTIONS_ASKING };
    const elicit = asking[0]?.elicit;
    if (!elicit) return { action: 'decline', reason: NOBODY_TO_ASK };
    return elicit(request, options);
  };

  /** Starts routing for one question over `inner`; `elicit` answers its servers' requests (absent: declined). */
  question(inner: ToolCaller, elicit?: Elicit): RoutedQuestion {
    const question: Question = { ...(elicit ? { elicit } : {}), inFlight: new Map() };
    this.questions.add(question);
    const track = async <T>(server: string, call: () => Promise<T>): Promise<T> => {
      question.inFlight.set(server, (question.inFlight.get(server) ?? 0) + 1);
      try {
        return await call();
      } finally {
        const left = (question.inFlight.get(server) ?? 1) - 1;
        if (left > 0) question.inFlight.set(server, left);
        else question.inFlight.delete(server);
      }
    };
    return {
      caller: {
        callTool: (server, tool, args, options) => track(server, () => inner.callTool(server, tool, args, options)),
        ...(inner.readResource ? { readResource: inner.readResource.bind(inner) } : {}),
      },
      done: () => void this.questions.delete(question),
    };
  }
}
