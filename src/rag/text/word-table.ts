// The words the tokeniser has met, each stored once with its term: a word found in a text costs a hash and a compare,
// with no substring and no Map lookup (which must hash a fresh string), and every occurrence shares one string.

/** Slots of a new table; it doubles while it is at most half full. */
const INITIAL_SLOTS = 1 << 12;

/** One word met before: its text, its term ('' for a stopword), and whether it is a stopword. */
export interface WordEntry {
  readonly word: string;
  readonly term: string;
  readonly stopword: boolean;
}

/**
 * An open-addressing hash table from a word, given as a range of a string and the range's hash, to its entry. Holds at
 * most `maxWords` words: past that it starts again empty, so memory stays bounded on a huge vocabulary.
 */
export class WordTable {
  private hashes = new Int32Array(INITIAL_SLOTS);
  private entries: Array<WordEntry | undefined> = new Array<WordEntry | undefined>(INITIAL_SLOTS).fill(undefined);
  private count = 0;

  constructor(
    private readonly maxWords: number,
    /** The entry of a word not met before (its term, whether it is a stopword). */
    private readonly makeEntry: (word: string) => WordEntry,
  ) {}

  /** The entry of `text[start..end)`, whose hash is `hash` (any 32-bit hash of those code units, always the same one). */
  get(text: string, start: number, end: number, hash: number): WordEntry {
    // As the Int32Array stores it, so that a hash given as an unsigned or larger number still matches.
    hash |= 0;
    const mask = this.hashes.length - 1;
    const length = end - start;
    // Ends at the word or at an empty slot: the table is never more than half full.
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.entries[slot];
      if (entry === undefined) return this.add(text.slice(start, end), hash);
      if (this.hashes[slot] === hash && entry.word.length === length && sameText(entry.word, text, start)) return entry;
    }
  }

  private add(word: string, hash: number): WordEntry {
    if (this.count >= this.maxWords) this.reset(INITIAL_SLOTS);
    else if ((this.count + 1) * 2 > this.hashes.length) this.grow();
    const entry = this.makeEntry(word);
    this.place(entry, hash);
    this.count++;
    return entry;
  }

  private place(entry: WordEntry, hash: number): void {
    const mask = this.hashes.length - 1;
    let slot = hash & mask;
    while (this.entries[slot] !== undefined) slot = (slot + 1) & mask;
    this.hashes[slot] = hash;
    this.entries[slot] = entry;
  }

  private grow(): void {
    const { hashes, entries, count } = this;
    this.reset(hashes.length * 2);
    entries.forEach((entry, slot) => entry && this.place(entry, hashes[slot]!));
    this.count = count;
  }

  private reset(slots: number): void {
    this.hashes = new Int32Array(slots);
    this.entries = new Array<WordEntry | undefined>(slots).fill(undefined);
    this.count = 0;
  }
}

/** True when `text` holds `word` at `start` (the caller has checked that it fits). */
function sameText(word: string, text: string, start: number): boolean {
  for (let i = 0; i < word.length; i++) if (word.charCodeAt(i) !== text.charCodeAt(start + i)) return false;
  return true;
}
