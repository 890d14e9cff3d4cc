// The CLI's exit codes (documented in the README) and the mapping from typed errors to them.
import { CortexError } from '../errors.js';

export const EXIT = {
  /** The question was answered, or the command did what it was asked. */
  ok: 0,
  /** The agent gave up: steps and lifelines ran out; or a server check failed. */
  gaveUp: 1,
  /** Bad command-line usage or an invalid config file. */
  usage: 2,
  /** No LLM is configured or it cannot be reached. */
  llmUnavailable: 3,
  /** Anything else: an MCP server could not be used, or a bug. */
  error: 4,
} as const;

export function exitCodeFor(err: unknown): number {
  if (!(err instanceof CortexError)) return EXIT.error;
  switch (err.code) {
    case 'config':
    case 'usage':
      return EXIT.usage;
    case 'llm_unavailable':
    case 'llm_request':
      return EXIT.llmUnavailable;
    default:
      return EXIT.error;
  }
}
