// Schema of the profile's `hooks` section: Claude Code's shape (event → [{matcher, hooks: [{type: command, command, timeout}]}]).
import { z } from 'zod';

/** A hook's time limit when it sets none, in seconds (Claude Code's default). */
export const DEFAULT_HOOK_TIMEOUT_S = 60;
/** The longest time limit a hook may set, in seconds: a question must not wait on a hook for hours. */
export const MAX_HOOK_TIMEOUT_S = 600;

/** The events a hook may run on: Claude Code's four, and PreLLMCall (before each request to the model) of our own. */
export const HOOK_EVENTS = ['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'PreLLMCall'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

const HookCommandSchema = z.strictObject({
  type: z.literal('command'),
  /** Run by /bin/sh -c (bash and node scripts alike), outside the sandbox, with the event as JSON on stdin. */
  command: z.string().min(1),
  /** Seconds before the hook is stopped (a warning; the question goes on). */
  timeout: z.number({ error: `expected a number of seconds from 1 to ${MAX_HOOK_TIMEOUT_S}` }).min(1).max(MAX_HOOK_TIMEOUT_S).optional(),
});

const HookMatcherSchema = z.strictObject({
  /**
   * A regular expression matched against `<server>.<tool>` and Claude Code's `mcp__<server>__<tool>` (PreToolUse,
   * PostToolUse; the model's name for PreLLMCall); absent, empty or `*` matches everything.
   */
  matcher: z
    .string()
    .optional()
    .refine((m) => m === undefined || m === '*' || isRegex(m), { error: 'expected a regular expression' }),
  hooks: z.array(HookCommandSchema).min(1),
});

export const HooksSchema = z
  .strictObject(Object.fromEntries(HOOK_EVENTS.map((e) => [e, z.array(HookMatcherSchema).optional()])) as Record<HookEvent, z.ZodOptional<z.ZodArray<typeof HookMatcherSchema>>>)
  .default({});

export type HooksSettings = z.infer<typeof HooksSchema>;
export type HookCommand = z.infer<typeof HookCommandSchema>;

function isRegex(text: string): boolean {
  try {
    new RegExp(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * True when `matcher` selects one of `names`. As in Claude Code: absent, '' and '*' match all; a plain name (letters,
 * digits, _ and -) must equal one of them; anything else is a regular expression searched in each.
 */
export function matches(matcher: string | undefined, names: readonly string[]): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  if (/^[\w-]+$/.test(matcher)) return names.includes(matcher);
  const pattern = new RegExp(matcher);
  return names.some((n) => pattern.test(n));
}
