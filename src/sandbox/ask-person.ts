// `ask_user(question, {choices})` in a plan: what the host accepts as a question, and what the model is told when none can be asked.
/** Questions one plan may ask: a plan looping on ask_user must not pester the person. */
export const MAX_QUESTIONS_PER_PLAN = 5;
/** Longest question shown, in characters. */
export const MAX_QUESTION_CHARS = 500;
/** Most choices offered, and the longest one, in characters. */
export const MAX_CHOICES = 20;
export const MAX_CHOICE_CHARS = 200;

export const NO_ANSWER_ADVICE =
  'Do not ask again in this task: make the most reasonable assumption, say which in the answer, or end with FINAL_ANSWER: saying what you need to know.';

/** For the model when nobody can answer (a script, `cortex serve` without a page, an MCP client without elicitation). */
export const NOBODY_TO_ASK_MESSAGE = `ask_user could not ask: nobody is there to answer (cortex runs without a terminal, page or client that can ask the person). ${NO_ANSWER_ADVICE}`;

/** For the model when the person declined, closed the question or did not answer in time. */
export const NO_ANSWER_MESSAGE = `ask_user got no answer: the person declined or did not answer. ${NO_ANSWER_ADVICE}`;

/**
 * The question and its choices from what the plan passed (`argsJson`: the JSON of `[options]`), or the message for the
 * model when they are not usable. `asked`: questions this plan asked before.
 */
export function readQuestion(question: string, argsJson: string, asked: number): { question: string; choices?: string[] } | string {
  if (asked >= MAX_QUESTIONS_PER_PLAN) return `ask_user was called more than ${MAX_QUESTIONS_PER_PLAN} times in one plan; ask once, with everything you need in one question.`;
  const text = question.trim();
  if (!text) return 'ask_user needs a question: ask_user("Which city?", { choices: ["Paris", "Lyon"] }).';
  if (text.length > MAX_QUESTION_CHARS) return `The question is ${text.length} characters; ask_user takes at most ${MAX_QUESTION_CHARS}. Ask a shorter one.`;
  let options: unknown;
  try {
    options = (JSON.parse(argsJson) as unknown[])[0];
  } catch {
    options = null;
  }
  const raw = typeof options === 'object' && options !== null ? (options as { choices?: unknown }).choices : undefined;
  if (raw === undefined || raw === null) return { question: text };
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_CHOICES || !raw.every((c) => typeof c === 'string' && c.trim() && c.length <= MAX_CHOICE_CHARS)) {
    return `choices must be a list of 1 to ${MAX_CHOICES} non-empty strings of at most ${MAX_CHOICE_CHARS} characters: ask_user("Which city?", { choices: ["Paris", "Lyon"] }).`;
  }
  return { question: text, choices: raw.map((c: string) => c.trim()) };
}
