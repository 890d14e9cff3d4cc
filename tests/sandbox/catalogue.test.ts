import { describe, expect, it } from 'vitest';
import type { ToolInfo } from '../../src/mcp/types.js';
import { QUALIFIED_NAMES_NOTE, RESULT_NOTES, renderToolCatalogue as renderWithNotes, shortenAtWord } from '../../src/sandbox/catalogue.js';

/** The tool lines of a catalogue, without the notes after the blank line. */
function renderToolCatalogue(tools: ToolInfo[]): string {
  return renderWithNotes(tools).split('\n\n')[0]!;
}

function tool(name: string, inputSchema: Record<string, unknown>, outputSchema?: Record<string, unknown>, description = ''): ToolInfo {
  return { server: 'test', name, remoteName: name, description, inputSchema, ...(outputSchema ? { outputSchema } : {}) };
}

const NUMBER_RESULT = { type: 'object', properties: { result: { type: 'number' } }, required: ['result'] };

describe('renderToolCatalogue', () => {
  it('renders name, signature from both schemas, and description', () => {
    const add = tool('add', { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] }, NUMBER_RESULT, 'Add two numbers');
    expect(renderToolCatalogue([add])).toBe('tools.add({a: number, b: number}): Promise<number>  — Add two numbers');
  });

  it('renders one line per tool', () => {
    const fib = tool(
      'fibonacci_numbers',
      { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      { type: 'object', properties: { result: { type: 'array', items: { type: 'integer' } } } },
      'First n Fibonacci numbers',
    );
    const chars = tool(
      'strings_to_chars_to_int',
      { type: 'object', properties: { string: { type: 'string' } }, required: ['string'] },
      { type: 'object', properties: { result: { type: 'array', items: { type: 'integer' } } } },
    );
    expect(renderToolCatalogue([fib, chars]).split('\n')).toEqual([
      'tools.fibonacci_numbers({n: number}): Promise<number[]>  — First n Fibonacci numbers',
      'tools.strings_to_chars_to_int({string: string}): Promise<number[]>',
    ]);
  });

  it('marks optional properties, unions, enums and nested objects', () => {
    const search = tool('search', {
      type: 'object',
      properties: {
        query: { type: 'string' },
        limit: { type: ['integer', 'null'] },
        mode: { enum: ['fast', 'deep'] },
        filter: { type: 'object', properties: { site: { type: 'string' } } },
        tags: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
      },
      required: ['query'],
    });
    expect(renderToolCatalogue([search])).toBe(
      'tools.search({query: string, limit?: number | null, mode?: "fast" | "deep", filter?: {site?: string}, tags?: (string | number)[]}): Promise<unknown>',
    );
  });

  it('uses bracket access for names that are not identifiers, and () for no arguments', () => {
    expect(renderToolCatalogue([tool('get-time', { type: 'object', properties: {} })])).toBe('tools["get-time"](): Promise<unknown>');
  });

  it('returns the whole output type when it has no result property', () => {
    const out = { type: 'object', properties: { title: { type: 'string' }, links: { type: 'array', items: { type: 'string' } } } };
    expect(renderToolCatalogue([tool('page', { type: 'object', properties: { url: { type: 'string' } } }, out)])).toBe(
      'tools.page({url?: string}): Promise<{title?: string, links?: string[]}>',
    );
  });

  it('collapses and shortens long descriptions', () => {
    const line = renderToolCatalogue([tool('x', {}, undefined, `first\n\n  second ${'y'.repeat(500)}`)]);
    expect(line).toMatch(/^tools\.x\(\): Promise<unknown> {2}— first second y+…$/);
    expect(line.length).toBeLessThan(360);
  });

  it('types a tool by its output schema, or unknown without one', () => {
    const weather = { type: 'object', properties: { temperature: { type: 'number' }, conditions: { type: 'string' } }, required: ['temperature', 'conditions'] };
    expect(renderToolCatalogue([tool('w', {}, weather), tool('img', {})]).split('\n')).toEqual([
      'tools.w(): Promise<{temperature: number, conditions: string}>',
      'tools.img(): Promise<unknown>',
    ]);
  });

  it('follows the tool lines with what results look like and how to read a raw result', () => {
    const text = renderWithNotes([tool('add', {})]);
    expect(text.split('\n\n')[1]!.split('\n')).toEqual(RESULT_NOTES.map((n) => `- ${n}`));
    expect(text).toContain('mcp.read_resource(uri)');
    expect(text).not.toContain('content[0].text');
    expect(text).not.toContain(QUALIFIED_NAMES_NOTE);
  });

  it('explains <server>.<tool> names when servers share a tool name', () => {
    const shared: ToolInfo = { ...tool('memory-a.read_graph', {}), remoteName: 'read_graph', server: 'memory-a' };
    const text = renderWithNotes([shared]);
    expect(text).toContain('tools["memory-a.read_graph"](): Promise<unknown>');
    expect(text).toContain(QUALIFIED_NAMES_NOTE);
  });

  it('renders nothing for no tools', () => {
    expect(renderWithNotes([])).toBe('');
  });
});

describe('shortenAtWord', () => {
  it('cuts a long description at a word boundary, never mid-word', () => {
    const text = 'Searches the stored documents for passages about a topic and returns them ranked';
    const short = shortenAtWord(text, 40);
    expect(short).toBe('Searches the stored documents for…');
    expect(short.length).toBeLessThanOrEqual(40);
  });

  it('keeps a description within the limit as it is', () => {
    expect(shortenAtWord('Add two numbers', 40)).toBe('Add two numbers');
  });
});
