// `/prompt NAME key=value …` in the REPL: a server's MCP prompt becomes the question; `/prompt` alone lists them.
import { errorMessage } from '../errors.js';
import type { PromptInfo } from '../mcp/types.js';

/** What `/prompt` needs: the MultiMcp's prompt methods. */
export interface PromptSource {
  listPrompts(): Promise<PromptInfo[]>;
  getPrompt(name: string, args: Record<string, string>, serverId?: string): Promise<{ server: string; text: string }>;
}

/** The outcome of a `/prompt` line: a question to ask, or a message for the person (a listing or what went wrong). */
export type PromptLineResult = { question: string } | { message: string };

/** True for a line the REPL should hand to promptLine(). */
export function isPromptLine(line: string): boolean {
  return /^\/prompts?(\s|$)/.test(line);
}

/**
 * Reads `/prompt NAME a=1 b="two words"` (NAME may be `server.name`): the prompt's text as the question, or a
 * message listing the prompts and their arguments when NAME is missing or unknown, or naming a missing argument.
 */
export async function promptLine(source: PromptSource, line: string): Promise<PromptLineResult> {
  const [, name, ...rest] = line.match(/(?:[^\s"]*"[^"]*")+[^\s"]*|\S+/g) ?? [];
  const prompts = await source.listPrompts();
  const listing = () =>
    prompts.length === 0
      ? 'No running server offers prompts.'
      : ['Prompts (use /prompt NAME arg=value …):', ...prompts.map((p) => `  ${p.server}.${p.name}${p.arguments.map((a) => ` ${a.name}=${a.required ? '…' : '[…]'}`).join('')}${p.description ? ` — ${p.description}` : ''}`)].join('\n');
  if (!name) return { message: listing() };
  const dot = name.indexOf('.');
  const match = prompts.find((p) => p.name === name) ?? (dot > 0 ? prompts.find((p) => p.server === name.slice(0, dot) && p.name === name.slice(dot + 1)) : undefined);
  if (!match) return { message: `No prompt named "${name}". ${listing()}` };
  const args: Record<string, string> = {};
  for (const pair of rest) {
    const eq = pair.indexOf('=');
    if (eq <= 0) return { message: `"${pair}" is not name=value.` };
    args[pair.slice(0, eq)] = pair.slice(eq + 1).replace(/^"(.*)"$/, '$1');
  }
  const missing = match.arguments.filter((a) => a.required && !(a.name in args)).map((a) => a.name);
  if (missing.length) return { message: `The prompt "${match.name}" needs ${missing.map((m) => `${m}=…`).join(' ')}.` };
  try {
    const { text } = await source.getPrompt(match.name, args, match.server);
    return { question: text };
  } catch (err) {
    return { message: `The prompt "${match.name}" could not be read: ${errorMessage(err)}` };
  }
}
