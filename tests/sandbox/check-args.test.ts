import { describe, expect, it } from 'vitest';
import { checkArgs } from '../../src/sandbox/check-args.js';

const ADD = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] };

describe('checkArgs', () => {
  it('accepts arguments that fit', () => {
    expect(checkArgs(ADD, { a: 1, b: 2.5 })).toEqual([]);
  });

  it('names missing properties and wrong types', () => {
    expect(checkArgs(ADD, { a: '1' })).toEqual(['arguments is missing "b"', 'arguments.a must be a number, got string "1"']);
  });

  it('refuses unknown properties only when additionalProperties is false', () => {
    expect(checkArgs(ADD, { a: 1, b: 2, c: 3 })).toEqual([]);
    expect(checkArgs({ ...ADD, additionalProperties: false }, { a: 1, b: 2, c: 3 })).toEqual([
      'arguments has an unknown property "c" (expected "a", "b")',
    ]);
  });

  it('checks integers, bounds, lengths and enums', () => {
    const schema = {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 0, maximum: 10 },
        s: { type: 'string', maxLength: 3 },
        mode: { enum: ['fast', 'slow'] },
      },
    };
    expect(checkArgs(schema, { n: 1.5 })).toEqual(['arguments.n must be an integer, got number 1.5']);
    expect(checkArgs(schema, { n: 11, s: 'abcd', mode: 'medium' })).toEqual([
      'arguments.n must be ≤ 10, got 11',
      'arguments.s must have at most 3 characters, got 4',
      'arguments.mode must be one of "fast", "slow", got string "medium"',
    ]);
  });

  it('checks array items and sizes', () => {
    const schema = { type: 'object', properties: { numbers: { type: 'array', items: { type: 'number' }, maxItems: 3 } } };
    expect(checkArgs(schema, { numbers: [1, 'x', 3] })).toEqual(['arguments.numbers[1] must be a number, got string "x"']);
    expect(checkArgs(schema, { numbers: [1, 2, 3, 4] })).toEqual(['arguments.numbers must have at most 3 items, got 4']);
  });

  it('accepts any alternative of anyOf and nullable values', () => {
    const schema = { type: 'object', properties: { v: { anyOf: [{ type: 'string' }, { type: 'number' }] }, w: { type: 'string', nullable: true } } };
    expect(checkArgs(schema, { v: 1, w: null })).toEqual([]);
    expect(checkArgs(schema, { v: true })).toEqual(['arguments.v does not match any allowed form (got boolean true)']);
  });

  it('stops after a few problems', () => {
    const schema = { type: 'object', properties: { xs: { type: 'array', items: { type: 'number' } } } };
    expect(checkArgs(schema, { xs: Array.from({ length: 1000 }, () => 'x') })).toHaveLength(5);
  });

  it('treats a __proto__ key from JSON as data, not a prototype', () => {
    const args = JSON.parse('{"a": 1, "b": 2, "__proto__": {"a": "polluted"}}') as Record<string, unknown>;
    expect(checkArgs(ADD, args)).toEqual([]);
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });
});
