// The default Elicit for a terminal: asks each field of a server's form on a line, or offers to open its URL.
import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { ElicitationTimedOut, type Elicit, type ElicitationAnswer, type FormField } from '../mcp/elicitation.js';
import { openBrowser } from '../mcp/oauth/open-browser.js';
import type { AskUser } from '../policy/approval-gate.js';
import type { RuntimeInteraction } from '../runtime/runtime.js';
import { withProgressHeld } from './screen-hold.js';

/** Tries per field before the form is given up as cancelled (a person typing "abc" for a number forever). */
const MAX_TRIES_PER_FIELD = 3;

/**
 * Where the questions go and the answers come from: `ask` (the REPL's or `ask`'s own line reader, null when no
 * answer came), else a reader made on `input`; `open` sends the person to a URL (default: their browser).
 */
export interface TerminalElicitOptions {
  input?: Readable;
  ask?: (question: string, signal: AbortSignal) => Promise<string | null>;
  output: Writable;
  open?: (url: string) => void;
}

/**
 * An Elicit that asks on a terminal: the server and its message first, then `y` to answer (anything else
 * declines); each form field on its own line with its default in brackets; a URL is shown whole and opened only on `y`.
 */
export function terminalElicit({ input, ask: askLine, output, open = openBrowser }: TerminalElicitOptions): Elicit {
  return async (request, { signal }) => {
    const rl = askLine || !input ? undefined : createInterface({ input, output, terminal: false });
    const ask = async (q: string): Promise<string> => {
      const answer = askLine ? await askLine(q, signal) : rl ? await rl.question(q, { signal }) : null;
      // No answer (the input ended, or the run was cancelled) declines like an empty line would.
      if (answer === null) throw new NoAnswer();
      return answer;
    };
    try {
      output.write(`\nThe MCP server "${request.server}" asks: ${request.message}\n`);
      if (request.mode === 'url') {
        output.write(`It wants you to open: ${request.url}\n`);
        const yes = /^y(es)?$/i.test((await ask('Open it? [y/N] ')).trim());
        if (!yes) return { action: 'decline' };
        open(request.url);
        return { action: 'accept' };
      }
      if (!/^y(es)?$/i.test((await ask('Answer? [y/N] ')).trim())) return { action: 'decline' };
      const content: NonNullable<Extract<ElicitationAnswer, { action: 'accept' }>['content']> = {};
      for (const [name, field] of Object.entries(request.fields)) {
        const value = await askField(ask, output, name, field, request.required.includes(name));
        if (value === CANCELLED) return { action: 'cancel' };
        if (value !== undefined) content[name] = value;
      }
      return { action: 'accept', content };
    } catch (err) {
      if (signal.reason instanceof ElicitationTimedOut) output.write(`\n${signal.reason.message}\n`);
      if (signal.aborted || err instanceof NoAnswer) return { action: 'cancel' };
      throw err;
    } finally {
      rl?.close();
    }
  };
}

const CANCELLED = Symbol('cancelled');

/** The person gave no answer at all. */
class NoAnswer extends Error {}

async function askField(
  ask: (q: string) => Promise<string>,
  output: Writable,
  name: string,
  field: FormField,
  required: boolean,
): Promise<string | number | boolean | string[] | undefined | typeof CANCELLED> {
  const choices = field.enum ?? field.oneOf?.map((o) => o.const);
  const hint = [field.description, choices ? `one of: ${choices.join(', ')}` : '', field.type === 'boolean' ? 'y/n' : ''].filter(Boolean).join('; ');
  const shownDefault = field.default !== undefined ? ` [${String(field.default)}]` : '';
  const label = `${field.title ?? name}${required ? '' : ' (optional)'}${hint ? ` (${hint})` : ''}${shownDefault}: `;
  for (let tries = 0; tries < MAX_TRIES_PER_FIELD; tries++) {
    const text = (await ask(label)).trim();
    if (text === '') {
      if (field.default !== undefined) return field.default as string | number | boolean;
      if (!required) return undefined;
      output.write('  This one is required.\n');
      continue;
    }
    const value = coerce(text, field, choices);
    if (value !== undefined) return value;
    const kind = field.type ?? 'value';
    output.write(`  Expected ${choices ? `one of ${choices.join(', ')}` : `${kind === 'integer' ? 'an' : 'a'} ${kind}`}.\n`);
  }
  return CANCELLED;
}

function coerce(text: string, field: FormField, choices: string[] | undefined): string | number | boolean | string[] | undefined {
  if (choices) return choices.includes(text) ? text : undefined;
  switch (field.type) {
    case 'boolean':
      return /^(y|yes|true)$/i.test(text) ? true : /^(n|no|false)$/i.test(text) ? false : undefined;
    case 'number':
    case 'integer': {
      const n = Number(text);
      if (!Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n))) return undefined;
      if ((field.minimum !== undefined && n < field.minimum) || (field.maximum !== undefined && n > field.maximum)) return undefined;
      return n;
    }
    case 'array':
      return text.split(',').map((s) => s.trim()).filter(Boolean);
    default:
      return text;
  }
}

/** How a Runtime reaches the person at this terminal: approvals through `ask`, servers' forms with progress held. */
export function terminalInteraction(ask: AskUser): RuntimeInteraction {
  const elicit = terminalElicit({ ask, output: process.stderr });
  return { ask, elicit: (request, options) => withProgressHeld(() => elicit(request, options)) };
}
