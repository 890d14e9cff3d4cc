// Signed feature hashing: a string feature → (slot, ±1) in a fixed-size vector, deterministic across runs and machines.

/** FNV-1a offset basis (32-bit). */
const FNV_OFFSET = 0x811c9dc5;
/** FNV-1a prime (32-bit). */
const FNV_PRIME = 0x01000193;

/** MurmurHash3's 32-bit finaliser: spreads FNV's weak low bits so `% dimension` and the sign bit are independent. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over the UTF-16 code units of `text[start..end)`, continuing from `seed`. */
export function fnv1a(text: string, start = 0, end = text.length, seed = FNV_OFFSET): number {
  let h = seed;
  for (let i = start; i < end; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

/** Extends an FNV-1a hash by one code unit (for n-grams grown one character at a time). */
export function fnv1aStep(h: number, code: number): number {
  return Math.imul(h ^ code, FNV_PRIME) >>> 0;
}
