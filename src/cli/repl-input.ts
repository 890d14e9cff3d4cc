// Turning terminal lines into messages: a bracketed paste is one message, a line ending in `\` continues on the next.

/** Joins lines into one message until it is complete. */
export class MessageAssembler {
  private pending: string[] = [];

  /**
   * Takes one line as readline gave it, `pasted` when it came inside the terminal's paste-start … paste-end;
   * returns the whole message once it is complete, else null.
   */
  take(line: string, pasted = false): string | null {
    if (pasted) {
      this.pending.push(line);
      return null;
    }
    if (line.endsWith('\\')) {
      this.pending.push(line.slice(0, -1));
      return null;
    }
    const message = [...this.pending, line].join('\n').trim();
    this.pending = [];
    return message;
  }

  /** True while a message is being continued (the prompt shows it). */
  get continuing(): boolean {
    return this.pending.length > 0;
  }

  clear(): void {
    this.pending = [];
  }
}

/** How the REPL reads a line it was given: a command, or a question. */
export type ReplInput = { kind: 'command'; name: string; arg: string } | { kind: 'question'; text: string } | { kind: 'empty' };

/** Bare words that act as commands without a slash (people type them out of habit). */
const BARE_COMMANDS = new Set(['exit', 'quit', 'help', 'new', 'clear']);

/** A `/name arg` line is a command; so is a bare `exit`, `quit`, `help`, `new` or `clear`; anything else is a question. */
export function readInput(message: string): ReplInput {
  const text = message.trim();
  if (!text) return { kind: 'empty' };
  const slash = /^\/([a-z][\w-]*)(?:\s+([\s\S]*))?$/i.exec(text);
  if (slash) return { kind: 'command', name: slash[1]!.toLowerCase(), arg: (slash[2] ?? '').trim() };
  if (BARE_COMMANDS.has(text.toLowerCase())) return { kind: 'command', name: text.toLowerCase(), arg: '' };
  return { kind: 'question', text };
}
