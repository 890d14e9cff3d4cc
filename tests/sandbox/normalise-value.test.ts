import { describe, expect, it } from 'vitest';
import { normaliseValue } from '../../src/sandbox/normalise-value.js';

describe('normaliseValue', () => {
  it('reads an object with a result, answer or value key as that value, in that order', () => {
    expect(normaliseValue({ result: 'FINAL_ANSWER: 5' })).toBe('FINAL_ANSWER: 5');
    expect(normaliseValue({ result: 7, other: 1 })).toBe('7');
    expect(normaliseValue({ answer: 42 })).toBe('42');
    expect(normaliseValue({ value: 'x', answer: 'y' })).toBe('y');
  });

  it('reads a FINAL_ANSWER or FURTHER_PROCESSING_REQUIRED key as that prefix', () => {
    expect(normaliseValue({ FINAL_ANSWER: 5 })).toBe('FINAL_ANSWER: 5');
    expect(normaliseValue({ final_answer: { answer: 'Paris' } })).toBe('FINAL_ANSWER: Paris');
    expect(normaliseValue({ FURTHER_PROCESSING_REQUIRED: [1, 2] })).toBe('FURTHER_PROCESSING_REQUIRED: 1 2');
  });

  it('turns other objects into JSON, and joins array items with a space (objects among them as JSON)', () => {
    expect(normaliseValue({ a: 1, b: 'x' })).toBe('{"a":1,"b":"x"}');
    expect(normaliseValue([1, 'two', { three: 3 }])).toBe('1 two {"three":3}');
    expect(normaliseValue({ result: [1, 2] })).toBe('1 2');
  });

  it('uses String() for everything else, so the loop sees undefined, null and NaN as such', () => {
    expect(normaliseValue(42)).toBe('42');
    expect(normaliseValue('text')).toBe('text');
    expect(normaliseValue(undefined)).toBe('undefined');
    expect(normaliseValue(null)).toBe('null');
    expect(normaliseValue(Number.NaN)).toBe('NaN');
    expect(normaliseValue(true)).toBe('true');
  });

  it('falls back to String() for objects JSON cannot hold', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(normaliseValue(cyclic)).toBe('[object Object]');
    expect(normaliseValue([10n])).toBe('10');
  });

  it('stops following nested result keys after 5 levels', () => {
    expect(normaliseValue({ result: { result: { result: { result: { result: { result: 1 } } } } } })).toBe('{"result":1}');
  });
  it('turns a promise anywhere in the value into "[object Promise]" (a tool call not awaited), which the loop refuses', () => {
    const pending = Promise.resolve(5);
    expect(normaliseValue(pending)).toBe('[object Promise]');
    expect(normaliseValue({ answer: pending })).toBe('[object Promise]');
    expect(normaliseValue([pending])).toBe('[object Promise]');
    expect(normaliseValue({ a: pending, b: 1 })).toBe('{"a":"[object Promise]","b":1}');
  });
});
