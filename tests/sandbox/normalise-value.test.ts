import { describe, expect, it } from 'vitest';
import { normaliseValue } from '../../src/sandbox/normalise-value.js';

describe('normaliseValue', () => {
  it('returns the result of an object that has one', () => {
    expect(normaliseValue({ result: 'FINAL_ANSWER: 5' })).toBe('FINAL_ANSWER: 5');
    expect(normaliseValue({ result: 7, other: 1 })).toBe('7');
  });

  it('normalises a result that is itself an object or array', () => {
    expect(normaliseValue({ result: { a: 1 } })).toBe('{"a":1}');
    expect(normaliseValue({ result: [1, 2] })).toBe('1 2');
  });

  it('turns any other object into JSON', () => {
    expect(normaliseValue({ a: 1, b: 'x' })).toBe('{"a":1,"b":"x"}');
  });

  it('joins array items with a space, objects as JSON', () => {
    expect(normaliseValue([1, 'two', { three: 3 }])).toBe('1 two {"three":3}');
  });

  it('uses String() for everything else', () => {
    expect(normaliseValue(42)).toBe('42');
    expect(normaliseValue('text')).toBe('text');
    expect(normaliseValue(undefined)).toBe('undefined');
    expect(normaliseValue(null)).toBe('null');
    expect(normaliseValue(true)).toBe('true');
  });

  it('falls back to String() for objects JSON cannot hold', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(normaliseValue(cyclic)).toBe('[object Object]');
    expect(normaliseValue([10n])).toBe('10');
  });
});
