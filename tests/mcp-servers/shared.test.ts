// The helpers every Cortex-R MCP server shares: result shapes and example metadata.
import { describe, expect, it } from 'vitest';
import {
  EXAMPLE_EXPECTS_ERROR_META_KEY,
  EXAMPLE_META_KEY,
  exampleMeta,
  readExample,
} from '../../mcp-servers/shared/example-meta.js';
import { toolError, toolResult } from '../../mcp-servers/shared/tool-result.js';

describe('toolResult', () => {
  it('puts {result} in structuredContent and the same object as JSON text', () => {
    const res = toolResult([1, 2]);
    expect(res.structuredContent).toEqual({ result: [1, 2] });
    expect(res.content).toEqual([{ type: 'text', text: '{"result":[1,2]}' }]);
    expect(res.isError).toBeUndefined();
  });
});

describe('toolError', () => {
  it('returns an isError result whose only text is the message', () => {
    expect(toolError('cannot divide 1 by zero')).toEqual({
      content: [{ type: 'text', text: 'cannot divide 1 by zero' }],
      isError: true,
    });
  });
});

describe('exampleMeta', () => {
  it('stores the arguments under cortex-r/example', () => {
    expect(exampleMeta({ a: 1 })).toEqual({ 'cortex-r/example': { a: 1 } });
    expect(EXAMPLE_META_KEY).toBe('cortex-r/example');
  });

  it('marks an example expected to fail', () => {
    expect(exampleMeta({ p: 'x' }, { expectsError: true })).toEqual({
      [EXAMPLE_META_KEY]: { p: 'x' },
      [EXAMPLE_EXPECTS_ERROR_META_KEY]: true,
    });
  });
});

describe('readExample', () => {
  it('reads back what exampleMeta wrote', () => {
    expect(readExample(exampleMeta({ n: 3 }))).toEqual({ args: { n: 3 }, expectsError: false });
    expect(readExample(exampleMeta({ n: 3 }, { expectsError: true }))).toEqual({ args: { n: 3 }, expectsError: true });
  });

  it('finds nothing in missing or malformed metadata', () => {
    expect(readExample(undefined)).toBeUndefined();
    expect(readExample({})).toBeUndefined();
    expect(readExample({ [EXAMPLE_META_KEY]: [1, 2] })).toBeUndefined();
    expect(readExample({ [EXAMPLE_META_KEY]: 'a=1' })).toBeUndefined();
  });
});
