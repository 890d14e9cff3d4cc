// The built-in lexical embedder, embedding settings and batched embedding.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLexicalEmbedder, DEFAULT_LEXICAL_DIMENSION } from '../../src/rag/embed/lexical-embedder.js';
import { openEmbedder } from '../../src/rag/embed/open-embedder.js';
import { embeddingFromEnv } from '../../src/rag/indexer-settings.js';
import { embedTexts } from '../../src/rag/embed/embed-texts.js';
import type { Embedder } from '../../src/rag/embed/embedder.js';

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

describe('createLexicalEmbedder', () => {
  const embedder = createLexicalEmbedder();

  it('records version and dimension in its id and returns unit vectors of that dimension', async () => {
    expect(embedder.id).toBe(`builtin:lexical-v2-${DEFAULT_LEXICAL_DIMENSION}`);
    const [v] = (await embedder.embed(['Nikola Tesla designed the AC induction motor.'])) as Float32Array[];
    expect(v).toHaveLength(DEFAULT_LEXICAL_DIMENSION);
    expect(dot(v!, v!)).toBeCloseTo(1, 5);
  });

  it('is deterministic across instances', async () => {
    const text = 'The Normans were descended from Norse raiders.';
    const [a] = await embedder.embed([text]);
    const [b] = await createLexicalEmbedder().embed([text]);
    expect(Array.from(a!)).toEqual(Array.from(b!));
  });

  it('puts texts sharing words closer than unrelated ones, inflections included', async () => {
    const [query, related, inflected, unrelated] = (await embedder.embed([
      'steam engine pressure',
      'The pressure inside a steam engine drives the piston.',
      'Engines powered by steam need high pressures.',
      'Oxygen is a chemical element with the symbol O.',
    ])) as Float32Array[];
    expect(dot(query!, related!)).toBeGreaterThan(0.3);
    expect(dot(query!, inflected!)).toBeGreaterThan(0.3);
    expect(dot(query!, unrelated!)).toBeLessThan(0.15);
  });

  it('gives a zero vector for text without content words', async () => {
    const [v] = await embedder.embed(['the of and']);
    expect(Array.from(v!).every((x) => x === 0)).toBe(true);
  });

  it('gives the same vectors as the v2 embedder always has, so an index built earlier stays valid', async () => {
    // Checksums of these texts' vectors, taken from the v2 embedder as first released (a dense, Map-counting
    // implementation). A change here needs LEXICAL_EMBEDDER_VERSION bumped, which rebuilds users' indexes.
    const texts = [
      'Nikola Tesla designed the AC induction motor.',
      'The U.S. Navy and B. F. Skinner; IT is not it. A. Smith',
      'steam steam steam engine engines pressure pressures pressure',
      'the of and',
      '',
      'Café naïve résumé 東京 Zürich ÆØÅ',
      'Nikola Tesla designed the AC induction motor.',
      `${'x'.repeat(60)} word-word_word 42 3.14`,
    ];
    const checksum = async (dimension: number) => {
      const hash = createHash('sha256');
      for (const v of (await createLexicalEmbedder({ dimension }).embed(texts)) as Float32Array[]) hash.update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
      return hash.digest('hex');
    };
    expect(await checksum(1024)).toBe('c7b5fd8922b2790365d9dbfc460b56281162d33185dbcfd619a9e6eeaa4bc1bf');
    expect(await checksum(64)).toBe('06a5dbda95c6cd94607b99aafbabef8dca3c50759946580d51b35c928f5eb48f');
  });

  it('embeds a text the same whatever came before it', async () => {
    const text = 'Tesla Tesla coils and induction motors; motors again.';
    const [alone] = (await createLexicalEmbedder().embed([text])) as Float32Array[];
    const after = (await createLexicalEmbedder().embed(['Coils of copper wire.', 'Tesla', text, text])) as Float32Array[];
    expect(Array.from(after[2]!)).toEqual(Array.from(alone!));
    expect(Array.from(after[3]!)).toEqual(Array.from(alone!));
  });

  it('refuses a dimension out of range', () => {
    expect(() => createLexicalEmbedder({ dimension: 10 })).toThrow(RangeError);
  });
});

describe('embeddingFromEnv', () => {
  it('reads builtin and builtin:<dimension>, and rejects anything else with the setting named', async () => {
    expect((await openEmbedder(embeddingFromEnv(undefined), {})).id).toBe(`builtin:lexical-v2-${DEFAULT_LEXICAL_DIMENSION}`);
    expect((await openEmbedder(embeddingFromEnv('builtin:256'), {})).dimension).toBe(256);
    expect(() => embeddingFromEnv('word2vec')).toThrow(/CORTEX_EMBEDDING.*ollama:<model>/);
    expect(() => embeddingFromEnv('ollama:')).toThrow(/CORTEX_EMBEDDING/);
  });
});

describe('embedTexts', () => {
  it('normalises vectors and batches calls', async () => {
    const calls: number[] = [];
    const fake: Embedder = { id: 'fake', dimension: 2, embed: async (texts) => (calls.push(texts.length), texts.map(() => [3, 4])) };
    const vectors = await embedTexts(fake, Array.from({ length: 70 }, () => 'x'));
    expect(calls).toEqual([64, 6]);
    expect(Array.from(vectors[0]!)).toEqual([Math.fround(0.6), Math.fround(0.8)]);
  });

  it('rejects vectors of the wrong length or count', async () => {
    const wrongLength: Embedder = { id: 'bad', dimension: 3, embed: async (texts) => texts.map(() => [1, 2]) };
    await expect(embedTexts(wrongLength, ['a'])).rejects.toThrow(/length 2, expected 3/);
    const wrongCount: Embedder = { id: 'bad', dimension: 2, embed: async () => [] };
    await expect(embedTexts(wrongCount, ['a'])).rejects.toThrow(/0 vectors for 1 texts/);
  });
});
