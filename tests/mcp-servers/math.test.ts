// The math server's tools through a real SDK Client over InMemoryTransport: good inputs, bad inputs, and listings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMathServer } from '../../mcp-servers/math/build-server.js';
import { readExample } from '../../mcp-servers/shared/example-meta.js';
import { connectInMemory, textOf, type InMemoryConnection } from './connect-in-memory.js';

const MATH_TOOLS = [
  'add', 'subtract', 'multiply', 'divide', 'power', 'cbrt', 'factorial', 'remainder', 'sin', 'cos', 'tan',
  'strings_to_chars_to_int', 'int_list_to_exponential_sum', 'fibonacci_numbers', 'create_thumbnail',
];

let conn: InMemoryConnection;
beforeAll(async () => {
  conn = await connectInMemory(buildMathServer());
});
afterAll(async () => {
  await conn.close();
});

/** Calls a tool expecting success; checks structuredContent and the JSON text agree, and returns the result. */
async function resultOf(name: string, args: Record<string, unknown>): Promise<unknown> {
  const res = await conn.call(name, args);
  expect(res.isError, `${name} failed: ${textOf(res)}`).toBeFalsy();
  expect(JSON.parse(textOf(res))).toEqual(res.structuredContent);
  return (res.structuredContent as { result: unknown }).result;
}

/** Calls a tool expecting an isError result; returns its message. */
async function errorOf(name: string, args: Record<string, unknown>): Promise<string> {
  const res = await conn.call(name, args);
  expect(res.isError, `${name} should have failed`).toBe(true);
  expect(res.structuredContent).toBeUndefined();
  return textOf(res);
}

describe('math server listing', () => {
  it('lists exactly the original tool names', async () => {
    const { tools } = await conn.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...MATH_TOOLS].sort());
  });

  it('gives every tool a title, a description, described inputs and an outputSchema with result', async () => {
    const { tools } = await conn.client.listTools();
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description?.length, tool.name).toBeGreaterThan(10);
      const props = tool.inputSchema.properties as Record<string, { description?: string }>;
      expect(Object.keys(props).length, tool.name).toBeGreaterThan(0);
      for (const [key, prop] of Object.entries(props)) expect(prop.description, `${tool.name}.${key}`).toBeTruthy();
      expect(tool.outputSchema?.required, tool.name).toEqual(['result']);
    }
  });

  it('publishes example arguments in _meta that each tool accepts, and the thumbnail example fails cleanly', async () => {
    const { tools } = await conn.client.listTools();
    for (const tool of tools) {
      const example = readExample(tool._meta);
      expect(example, tool.name).toBeDefined();
      if (!example) continue;
      const res = await conn.call(tool.name, example.args);
      expect(res.isError === true, `${tool.name}: ${textOf(res)}`).toBe(example.expectsError);
    }
    const thumbnail = tools.find((t) => t.name === 'create_thumbnail');
    expect(readExample(thumbnail?._meta)?.expectsError).toBe(true);
  });
});

describe('two-number tools', () => {
  it('adds, subtracts, multiplies and divides', async () => {
    expect(await resultOf('add', { a: 2, b: 3 })).toBe(5);
    expect(await resultOf('add', { a: 0.1, b: -2.5 })).toBeCloseTo(-2.4);
    expect(await resultOf('subtract', { a: 10, b: 4 })).toBe(6);
    expect(await resultOf('multiply', { a: 6, b: -7 })).toBe(-42);
    expect(await resultOf('divide', { a: 7, b: 2 })).toBe(3.5);
  });

  it('raises to a power, including negative and fractional exponents', async () => {
    expect(await resultOf('power', { a: 2, b: 10 })).toBe(1024);
    expect(await resultOf('power', { a: 2, b: -1 })).toBe(0.5);
    expect(await resultOf('power', { a: 9, b: 0.5 })).toBe(3);
  });

  it('takes the remainder with the sign of b, as the original Python a % b', async () => {
    expect(await resultOf('remainder', { a: 17, b: 5 })).toBe(2);
    expect(await resultOf('remainder', { a: -7, b: 3 })).toBe(2);
    expect(await resultOf('remainder', { a: 7, b: -3 })).toBe(-2);
    expect(await resultOf('remainder', { a: 5.5, b: 2 })).toBe(1.5);
  });

  it('refuses division and remainder by zero', async () => {
    expect(await errorOf('divide', { a: 7, b: 0 })).toMatch(/cannot divide 7 by zero/);
    expect(await errorOf('remainder', { a: 7, b: 0 })).toMatch(/remainder of 7 by zero is undefined/);
  });

  it('refuses results that are not finite numbers instead of sending NaN or Infinity', async () => {
    expect(await errorOf('power', { a: 10, b: 400 })).toMatch(/10 \^ 400 is infinite or beyond the largest 64-bit float/);
    expect(await errorOf('power', { a: -8, b: 1 / 3 })).toMatch(/is not a real number/);
    expect(await errorOf('power', { a: 0, b: -1 })).toMatch(/infinite/);
    expect(await errorOf('multiply', { a: 1e308, b: -10 })).toMatch(/negative infinite/);
    expect(await errorOf('add', { a: 1.7e308, b: 1.7e308 })).toMatch(/infinite/);
    expect(await errorOf('divide', { a: 1e308, b: 1e-10 })).toMatch(/infinite/);
  });

  it('rejects arguments of the wrong type or missing ones', async () => {
    expect(await errorOf('add', { a: '2', b: 3 })).toMatch(/expected number.*\ba\b/);
    expect(await errorOf('subtract', { a: 1 })).toMatch(/\bb\b/);
  });
});

describe('one-number tools', () => {
  it('computes the real cube root, also of negative numbers', async () => {
    expect(await resultOf('cbrt', { a: 27 })).toBe(3);
    expect(await resultOf('cbrt', { a: -8 })).toBe(-2);
  });

  it('computes sin, cos and tan of radians', async () => {
    expect(await resultOf('sin', { a: Math.PI / 2 })).toBe(1);
    expect(await resultOf('cos', { a: 0 })).toBe(1);
    expect(await resultOf('tan', { a: Math.PI / 4 })).toBeCloseTo(1, 12);
  });

  it('computes factorials from 0! to 170!', async () => {
    expect(await resultOf('factorial', { a: 0 })).toBe(1);
    expect(await resultOf('factorial', { a: 5 })).toBe(120);
    expect(await resultOf('factorial', { a: 22 })).toBe(1124000727777607680000);
    const largest = (await resultOf('factorial', { a: 170 })) as number;
    expect(largest).toBeGreaterThan(7.2e306);
    expect(Number.isFinite(largest)).toBe(true);
  });

  it('refuses factorials of negative, fractional and too-large numbers, saying the bound', async () => {
    expect(await errorOf('factorial', { a: -1 })).toMatch(/negative number \(-1\).*0 or more/);
    expect(await errorOf('factorial', { a: 2.5 })).toMatch(/whole number, got 2.5/);
    expect(await errorOf('factorial', { a: 171 })).toMatch(/at most 170, because 171! exceeds the largest 64-bit float/);
  });
});

describe('list tools', () => {
  it('turns a string into its character codes, one per code point', async () => {
    expect(await resultOf('strings_to_chars_to_int', { string: 'INDIA' })).toEqual([73, 78, 68, 73, 65]);
    expect(await resultOf('strings_to_chars_to_int', { string: '' })).toEqual([]);
    expect(await resultOf('strings_to_chars_to_int', { string: 'é😀' })).toEqual([233, 128512]);
  });

  it('refuses a string longer than the limit', async () => {
    expect(await errorOf('strings_to_chars_to_int', { string: 'x'.repeat(100_001) })).toMatch(/100000/);
  });

  it('sums the exponentials of a list', async () => {
    expect(await resultOf('int_list_to_exponential_sum', { numbers: [0, 1] })).toBeCloseTo(1 + Math.E, 12);
    expect(await resultOf('int_list_to_exponential_sum', { numbers: [] })).toBe(0);
    const india = [73, 78, 68, 73, 65];
    const expected = india.reduce((sum, x) => sum + Math.exp(x), 0);
    const sum = (await resultOf('int_list_to_exponential_sum', { numbers: india })) as number;
    expect(sum / expected).toBeCloseTo(1, 12);
  });

  it('accepts lists up to 100,000 numbers and refuses longer ones', async () => {
    expect(await resultOf('int_list_to_exponential_sum', { numbers: new Array<number>(100_000).fill(0) })).toBe(100_000);
    expect(await errorOf('int_list_to_exponential_sum', { numbers: new Array<number>(100_001).fill(0) })).toMatch(/100000/);
  });

  it('refuses an exponential sum that overflows, saying how large the numbers may be', async () => {
    expect(await errorOf('int_list_to_exponential_sum', { numbers: [1, 710] })).toMatch(/largest 710; keep each at most 709/);
    expect(await errorOf('int_list_to_exponential_sum', { numbers: [1, 'two'] })).toMatch(/expected number/);
  });

  it('returns the first n Fibonacci numbers, exact up to n = 79', async () => {
    expect(await resultOf('fibonacci_numbers', { n: 10 })).toEqual([0, 1, 1, 2, 3, 5, 8, 13, 21, 34]);
    expect(await resultOf('fibonacci_numbers', { n: 0 })).toEqual([]);
    expect(await resultOf('fibonacci_numbers', { n: 1 })).toEqual([0]);
    const longest = (await resultOf('fibonacci_numbers', { n: 79 })) as number[];
    expect(longest).toHaveLength(79);
    expect(longest[78]).toBe(8944394323791464);
    expect(longest.every(Number.isSafeInteger)).toBe(true);
  });

  it('refuses a negative, fractional or too-large n, saying why', async () => {
    expect(await errorOf('fibonacci_numbers', { n: -1 })).toMatch(/0 or more, got -1/);
    expect(await errorOf('fibonacci_numbers', { n: 2.5 })).toMatch(/whole number .*got 2.5/);
    expect(await errorOf('fibonacci_numbers', { n: 80 })).toMatch(/at most 79, because later Fibonacci numbers exceed 2\^53/);
  });
});

describe('math server resilience', () => {
  it('still answers after a run of failed calls', async () => {
    await errorOf('divide', { a: 1, b: 0 });
    await errorOf('factorial', { a: -1 });
    await errorOf('create_thumbnail', { image_path: '/nonexistent/image.png' });
    await errorOf('no_such_tool', {});
    expect(await resultOf('add', { a: 40, b: 2 })).toBe(42);
  });
});
