// How a plan's `ask_user()` reaches the person: a line on the terminal, or a one-field form (the page, an MCP client).
import type { AskUser } from '../policy/approval-gate.js';
import type { Elicit, ElicitationRequest } from '../mcp/elicitation.js';
import type { AskPerson } from '../sandbox/types.js';

/** Unclear answers (an unknown choice, an empty line) re-asked before giving up: a stuck input cannot loop. */
const MAX_TRIES_PER_QUESTION = 3;

/**
 * Asks on the terminal through `ask` (the same line reader as approvals): the question, the numbered choices, then
 * a line. A choice is picked by its number or its text; an answer outside the choices is asked again.
 */
export function terminalAskPerson(ask: AskUser): AskPerson {
  return async (question, { choices }, signal) => {
    const listed = choices ? choices.map((c, i) => `\n  ${i + 1}) ${c}`).join('') : '';
    let prompt = `\nCortex-R asks: ${question}${listed}\n${choices ? 'Your choice (number or text): ' : 'Your answer: '}`;
    for (let i = 0; i < MAX_TRIES_PER_QUESTION && !signal.aborted; i++) {
      const line = (await ask(prompt, signal))?.trim();
      if (line === undefined) return null;
      const answer = choices ? pick(choices, line) : line || null;
      if (answer !== null) return answer;
      prompt = choices ? `Please type a number from 1 to ${choices.length}, or one of the choices: ` : 'Please type an answer: ';
    }
    return null;
  };
}

/** The choice `line` names (its number, or its text in any case), or null. */
function pick(choices: readonly string[], line: string): string | null {
  const n = /^\d+$/.test(line) ? Number(line) : NaN;
  if (n >= 1 && n <= choices.length) return choices[n - 1]!;
  return choices.find((c) => c.toLowerCase() === line.toLowerCase()) ?? null;
}

/** Asks through an elicitation (the page streaming the question, or the MCP client of `cortex mcp`): one required field. */
export function elicitAskPerson(elicit: Elicit): AskPerson {
  return async (question, { choices }, signal) => {
    const request: ElicitationRequest = {
      server: 'Cortex-R',
      mode: 'form',
      message: question,
      fields: { answer: { type: 'string', title: 'Your answer', ...(choices ? { enum: choices } : {}) } },
      required: ['answer'],
      question: true,
    };
    const answer = await elicit(request, { signal });
    if (answer.action !== 'accept') return null;
    const value = answer.content?.answer;
    const text = Array.isArray(value) ? value.join(', ') : value === undefined ? '' : String(value).trim();
    return text || null;
  };
}

/** The terminal when there is one, else the question's own person (page, MCP client), else nobody (undefined). */
export function askPersonFor({ terminal, elicit }: { terminal?: AskUser | undefined; elicit?: Elicit | undefined }): AskPerson | undefined {
  if (terminal) return terminalAskPerson(terminal);
  if (elicit) return elicitAskPerson(elicit);
  return undefined;
}
