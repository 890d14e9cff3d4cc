// Pure arithmetic behind the math server's tools, with the bounds that keep every result a finite, exact-enough double.

/** Largest n whose factorial fits in a double: 170! ≈ 7.3e306, while 171! ≈ 1.2e309 overflows to Infinity. */
export const MAX_FACTORIAL_N = 170;

/**
 * Longest Fibonacci list we return. The list starts F(0) = 0, so n numbers end at F(n − 1); F(78) =
 * 8,944,394,323,791,464 is the last one below 2^53, and from F(79) on doubles can no longer hold them exactly.
 */
export const MAX_FIBONACCI_COUNT = 79;

/** Longest string strings_to_chars_to_int accepts, in UTF-16 code units; bounds the loop and the reply size. */
export const MAX_STRING_CHARS = 100_000;

/** Longest list int_list_to_exponential_sum accepts; bounds the loop and the request size. */
export const MAX_LIST_LENGTH = 100_000;

/** Largest x with a finite e^x in a double (e^709.78… ≈ 1.8e308); used in error hints. */
export const MAX_EXP_ARGUMENT = Math.log(Number.MAX_VALUE);

/** n! for a whole n in 0..MAX_FACTORIAL_N; exact up to 22!, the nearest double above that. Throws RangeError outside. */
export function factorial(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > MAX_FACTORIAL_N) {
    throw new RangeError(`factorial needs a whole number from 0 to ${MAX_FACTORIAL_N}, got ${n}`);
  }
  let product = 1;
  for (let k = 2; k <= n; k++) product *= k;
  return product;
}

/** The first `count` Fibonacci numbers, starting 0, 1, 1, 2 (count 0 → []). Throws RangeError outside 0..MAX_FIBONACCI_COUNT. */
export function fibonacciNumbers(count: number): number[] {
  if (!Number.isInteger(count) || count < 0 || count > MAX_FIBONACCI_COUNT) {
    throw new RangeError(`fibonacci count must be a whole number from 0 to ${MAX_FIBONACCI_COUNT}, got ${count}`);
  }
  const sequence: number[] = [];
  let current = 0;
  let next = 1;
  for (let i = 0; i < count; i++) {
    sequence.push(current);
    [current, next] = [next, current + next];
  }
  return sequence;
}

/**
 * a mod b with the sign of b (floored modulo), as the original server's Python `a % b` computed it:
 * remainderOf(-7, 3) = 2, remainderOf(7, -3) = -2. b must not be 0.
 */
export function remainderOf(a: number, b: number): number {
  const truncated = a % b;
  // JavaScript's % keeps the sign of a; shifting by b once gives the floored result without losing precision.
  return truncated !== 0 && truncated < 0 !== b < 0 ? truncated + b : truncated;
}

/** Unicode code point of each character, like Python's `[ord(c) for c in s]` (an emoji is one number, not two). */
export function charCodes(text: string): number[] {
  if (text.length > MAX_STRING_CHARS) {
    throw new RangeError(`string longer than ${MAX_STRING_CHARS} characters`);
  }
  const codes: number[] = [];
  // Bounded by MAX_STRING_CHARS above: a string iterates over at most text.length code points.
  for (const char of text) codes.push(char.codePointAt(0) ?? 0);
  return codes;
}

/** Σ e^x over `numbers` (0 for an empty list); may be Infinity, which the caller turns into an error. */
export function exponentialSum(numbers: readonly number[]): number {
  if (numbers.length > MAX_LIST_LENGTH) {
    throw new RangeError(`list longer than ${MAX_LIST_LENGTH} numbers`);
  }
  let sum = 0;
  for (const x of numbers) sum += Math.exp(x);
  return sum;
}
