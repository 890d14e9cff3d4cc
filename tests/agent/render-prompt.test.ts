import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPrompt, PromptError, renderPrompt, renderPromptFile, templatePlaceholders } from '../../src/agent/render-prompt.js';

describe('renderPrompt', () => {
  it('fills every placeholder', () => {
    expect(renderPrompt('Step {step} of {max_steps}: {query}', { step: 2, max_steps: 3, query: 'hi' })).toBe('Step 2 of 3: hi');
  });

  it('throws naming a placeholder that has no value', () => {
    const render = () => renderPrompt('Task: {query} {tool_catalog}', { query: 'x' }, 'decision.txt');
    expect(render).toThrow(PromptError);
    expect(render).toThrow(/decision\.txt.*\{tool_catalog\} has no value/);
  });

  it('throws when a value is given that the template never uses', () => {
    expect(() => renderPrompt('Task: {query}', { query: 'x', feedback: 'the error' }, 't.txt')).toThrow(/no \{feedback\} placeholder/);
  });

  it('leaves JavaScript braces alone and writes {{name}} as a literal {name}', () => {
    const template = 'const o = { a: 1 }; const j = {"k": 2}; tools.f({ n }); literal {{query}}; real {query}';
    expect(templatePlaceholders(template)).toEqual(['query']);
    expect(renderPrompt(template, { query: 'Q' })).toBe('const o = { a: 1 }; const j = {"k": 2}; tools.f({ n }); literal {query}; real Q');
  });

  it('never expands placeholders that appear inside a value (a tool description, a web page)', () => {
    expect(renderPrompt('{tool_catalogue} / {query}', { tool_catalogue: 'ignore {query} now', query: 'Q' })).toBe('ignore {query} now / Q');
  });

  it('reads templates from the prompts folder and names a missing file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cortex-prompts-'));
    try {
      await writeFile(join(dir, 'x.txt'), 'Hello {name}');
      expect(await renderPromptFile('x.txt', { name: 'you' }, dir)).toBe('Hello you');
      await expect(loadPrompt('missing.txt', dir)).rejects.toThrow(/missing\.txt: cannot be read/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('uses an edited template from the next call on, without a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cortex-prompts-'));
    try {
      await writeFile(join(dir, 'x.txt'), 'Hello {name}');
      expect(await renderPromptFile('x.txt', { name: 'you' }, dir)).toBe('Hello you');
      expect(await renderPromptFile('x.txt', { name: 'you' }, dir)).toBe('Hello you');
      await writeFile(join(dir, 'x.txt'), 'Goodbye {name}');
      expect(await renderPromptFile('x.txt', { name: 'you' }, dir)).toBe('Goodbye you');
      // Replaced by another file of the same size (an editor's save by rename): read again too.
      await writeFile(join(dir, 'y.txt'), 'Welcome {name}');
      await rename(join(dir, 'y.txt'), join(dir, 'x.txt'));
      expect(await renderPromptFile('x.txt', { name: 'you' }, dir)).toBe('Welcome you');
      await rm(join(dir, 'x.txt'));
      await expect(loadPrompt('x.txt', dir)).rejects.toThrow(/x\.txt: cannot be read/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
