// Ranks tools for a query in plain words: names split into words, BM25 over descriptions, server names, synonyms, stems.
import type { ToolInfo } from '../mcp/types.js';
import { queryConcepts } from './tool-query.js';
import { toolWords } from './tool-ranking-words.js';
import { SYNONYM_WEIGHT, synonymsOf } from './tool-synonyms.js';

export { toolWords };

/** A query word in the tool's name counts this many times one in its description (names say what a tool does). */
const NAME_WEIGHT = 3;
/** A query word in the server's id (e.g. "git", "sqlite") counts this much. */
const SERVER_WEIGHT = 1.5;
/** Description words looked at: the opening says what the tool does; long usage notes would match every query. */
const MAX_DESCRIPTION_WORDS = 40;
/** A word of at least this many characters also matches the words it begins ("sql" does not, "javas" → "javascript" does). */
const MIN_PREFIX_CHARS = 4;
/** Credit for a prefix match, against 1 for a whole word. */
const PREFIX_CREDIT = 0.5;
/** Tools whose names must hold a word pair for it to count as a compound ("work item"), and the share of a word's
 *  names in which it stands next to its partner. */
const MIN_COMPOUND_TOOLS = 3;
const MIN_COMPOUND_SHARE = 0.8;
/** Name credit of half a compound matched without its other half ("works" in create_work_item). */
const COMPOUND_PART_CREDIT = 0.5;
/** BM25's term-frequency saturation and length normalisation, as usual. */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

interface Indexed {
  name: string[];
  description: string[];
  server: string[];
  all: Set<string>;
}

/** The tools' words, kept per catalogue array: a run searches the same catalogue many times. */
const indexes = new WeakMap<readonly ToolInfo[], { tools: Indexed[]; df: Map<string, number>; avgDescription: number; partners: Map<string, Set<string>> }>();

function indexOf(tools: readonly ToolInfo[]) {
  const hit = indexes.get(tools);
  if (hit) return hit;
  const indexed = tools.map((tool): Indexed => {
    const name = toolWords(`${tool.remoteName} ${tool.name === tool.remoteName ? '' : tool.name}`);
    const description = toolWords(tool.description).slice(0, MAX_DESCRIPTION_WORDS);
    const server = toolWords(tool.server);
    return { name, description, server, all: new Set([...name, ...description, ...server]) };
  });
  const partners = compoundPartners(indexed.map((t) => t.name));
  const df = new Map<string, number>();
  for (const t of indexed) for (const w of t.all) df.set(w, (df.get(w) ?? 0) + 1);
  const avgDescription = indexed.reduce((n, t) => n + t.description.length, 0) / Math.max(1, indexed.length) || 1;
  const index = { tools: indexed, df, avgDescription, partners };
  indexes.set(tools, index);
  return index;
}

/**
 * Compounds of the catalogue's names ("work item", "merge request", "wiki page"): for each word that, in the names
 * holding it, stands next to one other word in at least MIN_COMPOUND_SHARE of them (and MIN_COMPOUND_TOOLS at least),
 * that word. Matching such a word without its partner ("works" against create_work_item) says less about the tool.
 */
function compoundPartners(names: ReadonlyArray<readonly string[]>): Map<string, Set<string>> {
  const inNames = new Map<string, number>();
  const pairs = new Map<string, number>();
  for (const name of names) {
    for (const w of new Set(name)) inNames.set(w, (inNames.get(w) ?? 0) + 1);
    for (const p of new Set(name.slice(1).map((w, i) => `${name[i]} ${w}`))) pairs.set(p, (pairs.get(p) ?? 0) + 1);
  }
  const partners = new Map<string, Set<string>>();
  const add = (word: string, partner: string) => partners.set(word, (partners.get(word) ?? new Set<string>()).add(partner));
  for (const [pair, n] of pairs) {
    if (n < MIN_COMPOUND_TOOLS) continue;
    const [a, b] = pair.split(' ') as [string, string];
    if (n / inNames.get(a)! >= MIN_COMPOUND_SHARE) add(a, b);
    if (n / inNames.get(b)! >= MIN_COMPOUND_SHARE) add(b, a);
  }
  return partners;
}

/** How well `words` holds `term`: 1 for the word itself, PREFIX_CREDIT for a word it begins, else 0; counted. */
function occurrences(words: readonly string[], term: string): number {
  let count = 0;
  for (const w of words) {
    if (w === term) count += 1;
    else if (term.length >= MIN_PREFIX_CHARS && w.startsWith(term)) count += PREFIX_CREDIT;
  }
  return count;
}

/**
 * Scores of `tools` for `query`, in catalogue order (0: nothing matched). Each query word counts once, through
 * itself or its best synonym (SYNONYM_WEIGHT): rare words count more (IDF), a word in the name NAME_WEIGHT times
 * one in the description (BM25), one in the server id SERVER_WEIGHT, half a compound of the names without its other half
 * (compoundPartners) COMPOUND_PART_CREDIT of a name match; the sum is scaled by the share of query words matched.
 */
export function scoreTools(tools: readonly ToolInfo[], query: string): number[] {
  const { tools: indexed, df, avgDescription, partners } = indexOf(tools);
  const concepts = queryConcepts(query, df);
  if (concepts.length === 0) return tools.map(() => 0);
  const idf = (term: string) => {
    const n = df.get(term) ?? 0;
    return Math.log(1 + (indexed.length - n + 0.5) / (n + 0.5));
  };
  const choices = concepts.map((c) => [{ term: c, weight: 1, idf: idf(c) }, ...[...synonymsOf(c)].map((s) => ({ term: s, weight: SYNONYM_WEIGHT, idf: idf(s) }))]);
  // Every word the query brings, synonyms included: a compound's partner among them makes the compound whole.
  const asked = new Set(choices.flat().map((c) => c.term));
  return indexed.map((t) => {
    let score = 0;
    let matched = 0;
    for (const alternatives of choices) {
      let best = 0;
      for (const { term, weight, idf: rarity } of alternatives) {
        let inName = Math.min(1, occurrences(t.name, term));
        const partner = partners.get(term);
        if (inName > 0 && partner && t.name.some((w) => partner.has(w)) && ![...partner].some((p) => asked.has(p))) inName *= COMPOUND_PART_CREDIT;
        const tf = occurrences(t.description, term);
        const inDescription = tf === 0 ? 0 : (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * t.description.length) / avgDescription));
        const inServer = Math.min(1, occurrences(t.server, term));
        const value = weight * rarity * (NAME_WEIGHT * inName + inDescription + SERVER_WEIGHT * inServer);
        if (value > best) best = value;
      }
      score += best;
      if (best > 0) matched++;
    }
    // A tool matching more of what was asked beats one matching a single word strongly (Lucene's coord factor).
    return score * (matched / choices.length);
  });
}
