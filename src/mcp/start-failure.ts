// Why a server failed to start, in one line: the deadline, the exit, a bad message — and its telling stderr lines, not npm's noise.
import { errorMessage } from '../errors.js';

/** Stderr lines quoted at most, so a server that floods stderr still gives a one-line reason. */
const MAX_CAUSE_LINES = 2;
/** Characters of one quoted stderr line. */
const MAX_CAUSE_LINE_CHARS = 300;

/** Noise that is never the cause: npm's warnings and notices, Node's deprecation and experimental warnings. */
const NOISE = [
  /^npm (warn|notice|WARN|http)\b/i,
  /^\(node:\d+\) \w*Warning/,
  /^\(Use `node --trace-/,
  /^npm error (A complete log|Log files were not written|You can rerun|\s*$)/i,
  // npm's detail lines (code, syscall, errno…) repeat what its FetchError / 404 line says in full.
  /^npm error (code|syscall|errno|path|dest|signal|command|cwd|workdir|location)\b/i,
];
/** Lines that usually name the cause. */
const TELLING = /\b(error|ERR!?|ECONN\w*|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ENOENT|EACCES|E404|not found|cannot|can't|could not|failed|denied|refused|invalid|missing|usage:)/i;

/** What we know about a failed start. */
export interface StartFailureInput {
  /** What connect or tools/list threw. */
  error: unknown;
  /** The first transport errors (a message that is not JSON-RPC, one over the size limit). */
  transportErrors: unknown[];
  timedOut: boolean;
  limitMs: number;
  stderr: string;
}

/** One line saying why a server did not start, with at most MAX_CAUSE_LINES telling stderr lines. */
export function startFailure({ error, transportErrors, timedOut, limitMs, stderr }: StartFailureInput): string {
  const transport = transportErrors.map(errorMessage).join(' ');
  let what: string;
  const tooBig = /ReadBuffer exceeded/i.test(transport);
  if (tooBig) what = `sent a message larger than ${Math.round(Number(/(\d+) bytes/.exec(transport)?.[1] ?? 0) / 1_048_576)} MB`;
  else if (timedOut) what = `did not answer within ${Math.round(limitMs / 1000)} s (raise its \`timeout\` if it installs slowly)`;
  else if (/connection closed/i.test(errorMessage(error))) what = 'exited before it answered';
  else what = errorMessage(error).replace(/\s+/g, ' ').slice(0, MAX_CAUSE_LINE_CHARS);
  if (!tooBig && /JSON|Unexpected token|is not valid|invalid_union|ZodError|Invalid input/i.test(transport)) {
    what += '; its stdout is not JSON-RPC (servers must log to stderr)';
  }
  const cause = telling(stderr);
  return cause ? `${what}; its stderr: ${cause}` : what;
}

/** The stderr lines that name the cause (else the last meaningful one), joined on one line. */
export function telling(stderr: string): string {
  const all = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const meaningful = all.filter((l) => !NOISE.some((n) => n.test(l)));
  const lines = meaningful.length ? meaningful : all.slice(-1);
  const picked = lines.filter((l) => TELLING.test(l)).slice(0, MAX_CAUSE_LINES);
  const chosen = picked.length ? picked : lines.slice(-1);
  return chosen.map((l) => l.slice(0, MAX_CAUSE_LINE_CHARS)).join(' | ');
}
