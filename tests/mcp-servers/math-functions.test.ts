// The pure functions behind the math tools, including the guards the tools' schemas normally stop short of.
import { describe, expect, it } from 'vitest';
import {
  charCodes,
  exponentialSum,
  factorial,
  fibonacciNumbers,
  MAX_FACTORIAL_N,
  MAX_FIBONACCI_COUNT,
  MAX_LIST_LENGTH,
  MAX_STRING_CHARS,
  remainderOf,
} from '../../mcp-servers/math/math-functions.js';
import { readImageDimensions } from '../../mcp-servers/math/image-header.js';

describe('bounds', () => {
  it('stops factorial where the next one overflows a double', () => {
    expect(Number.isFinite(factorial(MAX_FACTORIAL_N))).toBe(true);
    expect(Number.isFinite(factorial(MAX_FACTORIAL_N) * (MAX_FACTORIAL_N + 1))).toBe(false);
    expect(() => factorial(MAX_FACTORIAL_N + 1)).toThrow(RangeError);
  });

  it('stops Fibonacci where the next number would exceed 2^53', () => {
    const list = fibonacciNumbers(MAX_FIBONACCI_COUNT);
    const [beforeLast, last] = list.slice(-2) as [number, number];
    expect(Number.isSafeInteger(last)).toBe(true);
    expect(Number.isSafeInteger(beforeLast + last)).toBe(false);
    expect(() => fibonacciNumbers(MAX_FIBONACCI_COUNT + 1)).toThrow(RangeError);
    expect(() => fibonacciNumbers(-1)).toThrow(RangeError);
  });

  it('refuses over-long inputs even when called directly', () => {
    expect(() => charCodes('x'.repeat(MAX_STRING_CHARS + 1))).toThrow(RangeError);
    expect(() => exponentialSum(new Array<number>(MAX_LIST_LENGTH + 1).fill(0))).toThrow(RangeError);
  });
});

describe('remainderOf', () => {
  it('follows the sign of the divisor', () => {
    expect(remainderOf(-7, 3)).toBe(2);
    expect(remainderOf(7, -3)).toBe(-2);
    expect(remainderOf(-7, -3)).toBe(-1);
    expect(remainderOf(6, 3)).toBe(0);
  });
});

describe('readImageDimensions', () => {
  it('reads GIF and BMP headers and ignores unknown formats', () => {
    const gif = Buffer.alloc(16);
    gif.write('GIF89a', 0, 'latin1');
    gif.writeUInt16LE(640, 6);
    gif.writeUInt16LE(480, 8);
    expect(readImageDimensions(gif)).toEqual({ width: 640, height: 480 });

    const bmp = Buffer.alloc(32);
    bmp.write('BM', 0, 'latin1');
    bmp.writeInt32LE(800, 18);
    bmp.writeInt32LE(-600, 22);
    expect(readImageDimensions(bmp)).toEqual({ width: 800, height: 600 });

    expect(readImageDimensions(Buffer.from('plain text file'))).toBeUndefined();
  });
});
