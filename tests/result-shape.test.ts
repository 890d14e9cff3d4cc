import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shapeOfResult } from '../src/result-shape.js';

describe('a long step result cut to its shape', () => {
  it('keeps a result that fits as it is', () => {
    expect(shapeOfResult('{"a":1}', 100)).toBe('{"a":1}');
  });

  it('shows every key, each array\'s length and the start of long strings', () => {
    const value = { users: Array.from({ length: 500 }, (_, i) => ({ name: `user ${i}`, bio: 'b'.repeat(2_000) })), count: 500 };
    const shaped = shapeOfResult(JSON.stringify(value), 3_000);
    expect(shaped.length).toBeLessThanOrEqual(3_000);
    expect(shaped).toContain('"users"');
    expect(shaped).toContain('"count": 500');
    expect(shaped).toContain('"name": "user 0"');
    expect(shaped).toMatch(/more \(500 items in all\)/);
    expect(shaped).toContain('[2,000 chars]');
  });

  it('names the keys it could not show', () => {
    const wide = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`field_${i}`, 'v'.repeat(100)]));
    const shaped = shapeOfResult(JSON.stringify(wide), 2_000);
    expect(shaped).toContain('"field_0"');
    expect(shaped).toMatch(/more keys: "field_/);
  });

  it('cuts plain text to its start and end, saying how much is left out', () => {
    const text = `${'a'.repeat(5_000)}MIDDLE${'z'.repeat(5_000)}`;
    const shaped = shapeOfResult(text, 1_000);
    expect(shaped.startsWith('a'.repeat(750))).toBe(true);
    expect(shaped.endsWith('z'.repeat(250))).toBe(true);
    expect(shaped).toContain(`[9,006 of 10,006 characters left out]`);
  });

  it('never exceeds the limit by more than its own notes, whatever the JSON', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 6 }), fc.integer({ min: 500, max: 8_000 }), (json, max) => {
        const shaped = shapeOfResult(json, max);
        // A value that fits is kept; otherwise the rendering fits, or the text is cut to max plus its one-line note.
        expect(shaped.length).toBeLessThanOrEqual(max + 80);
        if (json.length <= max) expect(shaped).toBe(json);
      }),
      { numRuns: 300 },
    );
  });
});
