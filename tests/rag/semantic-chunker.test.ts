// LLM semantic chunking with a scripted LLM: splits, bounded windows, fallback.
import { describe, expect, it } from 'vitest';
import { ScriptedLlm } from '../helpers/scripted-llm.js';
import { chunkSemantic, SEMANTIC_WINDOW_WORDS } from '../../src/rag/chunk/semantic-chunker.js';
import { chunkStructural } from '../../src/rag/chunk/structural-chunker.js';

const steam = 'Steam engines turn heat into motion. Boilers raise the pressure. Pistons move the wheels.';
const oxygen = 'Oxygen is a chemical element. It has the symbol O. Animals breathe it.';

describe('chunkSemantic', () => {
  it('splits where the LLM says a new topic starts and reads the rest again', async () => {
    const llm = new ScriptedLlm({ turns: [oxygen, 'NOTHING'] });
    const { chunks, warnings } = await chunkSemantic([{ page: 2, text: `${steam}\n\n${oxygen}` }], { llm });
    expect(warnings).toEqual([]);
    expect(chunks).toEqual([
      { page: 2, text: steam },
      { page: 2, text: oxygen },
    ]);
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests[0]!.prompt).toContain('markdown document segmenter');
    expect(llm.requests[1]!.prompt).toContain(oxygen);
    expect(llm.requests[1]!.prompt).not.toContain(steam);
  });

  it('finds the split even when the model reflows the whitespace of its reply', async () => {
    const llm = new ScriptedLlm({ turns: ['Oxygen is a\nchemical   element. It has…', 'NOTHING'] });
    const { chunks } = await chunkSemantic([{ page: 1, text: `${steam} ${oxygen}` }], { llm });
    expect(chunks.map((c) => c.text)).toEqual([steam, oxygen]);
  });

  it('keeps the window whole when the reply is not in it or would split at its very start', async () => {
    const llm = new ScriptedLlm({ turns: ['Something the text never said.'] });
    expect((await chunkSemantic([{ page: 1, text: steam }], { llm })).chunks).toEqual([{ page: 1, text: steam }]);
    const again = new ScriptedLlm({ turns: [steam] });
    expect((await chunkSemantic([{ page: 1, text: steam }], { llm: again })).chunks).toEqual([{ page: 1, text: steam }]);
  });

  it('sends at most 512 words per call', async () => {
    const text = Array.from({ length: 1_200 }, (_, i) => `w${i}`).join(' ');
    const llm = new ScriptedLlm({ turns: ['NOTHING', 'NOTHING', 'NOTHING'] });
    await chunkSemantic([{ page: 1, text }], { llm });
    expect(llm.requests).toHaveLength(3);
    for (const request of llm.requests) {
      const window = request.prompt.split('---')[1]!;
      expect(window.trim().split(/\s+/).length).toBeLessThanOrEqual(SEMANTIC_WINDOW_WORDS);
    }
  });

  it('falls back to structural chunking of the whole document when the LLM fails', async () => {
    const llm = new ScriptedLlm({
      turns: [
        oxygen,
        () => {
          throw new Error('model crashed');
        },
      ],
    });
    const pages = [{ page: 1, text: `${steam}\n\n${oxygen}` }];
    const { chunks, warnings } = await chunkSemantic(pages, { llm });
    expect(chunks).toEqual(chunkStructural(pages));
    expect(warnings[0]).toMatch(/model crashed.*chunked by structure/);
  });
});
