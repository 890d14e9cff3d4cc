// The model's own turn in a reply: reasoning removed (in every tag form), text after a hallucinated next turn dropped, wrapper tags made fences.

/** A fence line: three or more backticks (or tildes) at the start of a line, then an optional label. */
export const FENCE_LINE_RE = /^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)/;

/** For each line, whether it lies outside code fences (a fence line itself does not): each fence line opens or closes one. */
export function outsideFences(lines: readonly string[]): boolean[] {
  let inFence = false;
  return lines.map((line) => {
    if (!FENCE_LINE_RE.test(line)) return !inFence;
    inFence = !inFence;
    return false;
  });
}

/** Tags reasoning models put their drafts in (Qwen3, DeepSeek-R1, Claude-style, Granite). */
const REASONING_TAGS = 'think|thinking|reasoning|thought';
const PAIRED_REASONING_RE = new RegExp(`<(${REASONING_TAGS})>[\\s\\S]*?<\\/\\1>`, 'gi');
const CLOSING_REASONING_RE = new RegExp(`<\\/(?:${REASONING_TAGS})>`, 'gi');
const OPENING_REASONING_RE = new RegExp(`<(?:${REASONING_TAGS})>`, 'i');

/** Chat-template tokens that end our turn or start another one: nothing after them is the model's answer to us. */
const TURN_TOKEN_RE =
  /<\|im_end\|>|<\|im_start\|>|<\|eot_id\|>|<\|start_header_id\|>|<\|end_header_id\|>|<\|endoftext\|>|<\|end\|>|<\|user\|>|<\|assistant\|>|<end_of_turn>|<start_of_turn>|<｜end▁of▁sentence｜>|<｜User｜>|<｜Assistant｜>/;
/** Headers that open the model's own turn, dropped when a reply starts with one. */
const OWN_TURN_HEADER_RE =
  /^\s*(?:<\|im_start\|>assistant|<start_of_turn>model|<\|start_header_id\|>assistant<\|end_header_id\|>|<\|assistant\|>|<｜Assistant｜>|Assistant:)[ \t]*\n?/i;
/** A line (outside code) where someone else's turn starts: the user, a tool observation, a new instruction. */
const OTHER_TURN_LINE_RE = /^(?:(?:User|Human|Observation|USER|HUMAN|OBSERVATION|Assistant|ASSISTANT)[ \t]*:|#{2,}[ \t]*(?:Instruction|Input|Human|User|Response)\b)/;
const ASSISTANT_LINE_RE = /^[ \t]*(?:Assistant|ASSISTANT)[ \t]*:[ \t]*/;

/** Wrapper tags other code agents use instead of fences, and the fence label each stands for. */
const WRAPPER_LABELS: Record<string, string> = { code: '', execute: '', tool_code: '', execute_ipython: 'python', execute_bash: 'bash' };
const WRAPPER_OPEN_RE = /^[ \t]*<(code|execute|tool_code|execute_ipython|execute_bash)>[ \t]*\n?/gm;
const WRAPPER_CLOSE_RE = /\n?[ \t]*<\/(code|execute|tool_code|execute_ipython|execute_bash)>[ \t]*$/gm;
/** Hermes-style tool-call tags around JSON: the JSON is what counts. */
const TOOL_CALL_TAG_RE = /<\/?tool_call>/g;

/** Cap on how much of the model's words a person is shown, in characters. */
const MAX_SAID_CHARS = 300;

/** The model's own turn. */
export interface Turn {
  /** The answer part: reasoning removed, other turns dropped, wrapper tags turned into fences. */
  text: string;
  /** A reasoning block was opened and never closed: the reply ended while the model was still reasoning. */
  stillReasoning: boolean;
  /** The reply held reasoning (in any tag form). */
  hadReasoning: boolean;
}

/**
 * Reasoning is never the answer: paired blocks go; a lone closing tag means everything before it
 * was reasoning (DeepSeek-R1's template opens the block in the prompt); an opening tag never closed
 * means everything after it is reasoning (cut off by the token limit). Lone tags are judged within
 * the model's own turn (a `</think>` in a hallucinated next turn is not ours), so this runs in two parts.
 */
function withoutPairedReasoning(text: string): { text: string; hadReasoning: boolean } {
  const out = text.replace(PAIRED_REASONING_RE, '');
  return { text: out, hadReasoning: out !== text };
}

function withoutLoneReasoning(text: string): { text: string; stillReasoning: boolean; hadReasoning: boolean } {
  let out = text;
  let hadReasoning = false;
  let lastClose = -1;
  for (const m of out.matchAll(CLOSING_REASONING_RE)) lastClose = m.index + m[0].length;
  if (lastClose >= 0) {
    out = out.slice(lastClose);
    hadReasoning = true;
  }
  const open = OPENING_REASONING_RE.exec(out);
  if (!open) return { text: out, stillReasoning: false, hadReasoning };
  return { text: out.slice(0, open.index), stillReasoning: true, hadReasoning: true };
}

/** Times a reply may open with template tokens or an echoed user turn before ours starts; past it, nothing is ours. */
const MAX_TURN_RESTARTS = 4;

/** The text up to the first sign of another turn: a chat-template token, or a role line outside code. */
function ownTurn(text: string, restarts = 0): string {
  if (restarts > MAX_TURN_RESTARTS) return '';
  let out = text.replace(OWN_TURN_HEADER_RE, '');
  const token = TURN_TOKEN_RE.exec(out);
  if (token) {
    const before = out.slice(0, token.index);
    // A reply that opens with template tokens: skip them once and read what follows.
    if (before.trim() !== '') out = before;
    else return ownTurn(out.slice(token.index + token[0].length).replace(/^(?:assistant|model)?[ \t]*(?:<\|end_header_id\|>)?/, ''), restarts + 1);
  }
  const lines = out.split('\n');
  const outside = outsideFences(lines);
  let seenContent = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (outside[i] && OTHER_TURN_LINE_RE.test(line)) {
      if (seenContent) return lines.slice(0, i).join('\n');
      if (ASSISTANT_LINE_RE.test(line)) {
        lines[i] = line.replace(ASSISTANT_LINE_RE, '');
      } else {
        // A reply that starts by echoing the user's turn: our turn begins at the next "Assistant:".
        const reply = lines.slice(i + 1).findIndex((l) => ASSISTANT_LINE_RE.test(l));
        if (reply < 0) return '';
        return ownTurn(lines.slice(i + 1 + reply).join('\n').replace(ASSISTANT_LINE_RE, ''), restarts + 1);
      }
    }
    if (line.trim() !== '') seenContent = true;
  }
  return lines.join('\n');
}

/** `<code>…</code>`, `<execute>…</execute>` and kin become fences, unless the reply already has fences (then the tags just go). */
function wrapperTagsAsFences(text: string): string {
  const untagged = text.replace(TOOL_CALL_TAG_RE, '\n');
  const hasFences = untagged.split('\n').some((line) => FENCE_LINE_RE.test(line));
  return untagged
    .replace(WRAPPER_OPEN_RE, (_m, tag: string) => (hasFences ? '' : `\`\`\`${WRAPPER_LABELS[tag] ?? ''}\n`))
    .replace(WRAPPER_CLOSE_RE, () => (hasFences ? '' : '\n```'));
}

/** The model's own turn with its reasoning removed, wrapper tags still as written. */
function ownTurnWithoutReasoning(reply: string): Turn {
  const paired = withoutPairedReasoning(reply);
  const lone = withoutLoneReasoning(ownTurn(paired.text));
  return { text: lone.text, stillReasoning: lone.stillReasoning, hadReasoning: paired.hadReasoning || lone.hadReasoning };
}

/** Reads the model's own turn out of a reply (line endings already normalised). */
export function readTurn(reply: string): Turn {
  const turn = ownTurnWithoutReasoning(reply);
  return { ...turn, text: wrapperTagsAsFences(turn.text) };
}

/** What the model said, for a person: its own turn without reasoning, blank lines squeezed, cut to `max` characters. */
export function modelWords(reply: string, max = MAX_SAID_CHARS): string {
  const text = ownTurnWithoutReasoning(reply.replace(/\r\n?/g, '\n'))
    .text.replace(TOOL_CALL_TAG_RE, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}
