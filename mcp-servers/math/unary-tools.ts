// The one-number tools: cbrt, factorial, sin, cos, tan, each taking flat {a}.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { exampleMeta } from '../shared/example-meta.js';
import { factorial, MAX_FACTORIAL_N } from './math-functions.js';
import { numberResult } from './number-result.js';

interface UnaryToolSpec {
  name: string;
  title: string;
  description: string;
  aDescription: string;
  resultDescription: string;
  example: { a: number };
  compute: (a: number) => number;
}

const RADIANS = 'Angle in radians (degrees × π / 180)';

const UNARY_TOOLS: readonly UnaryToolSpec[] = [
  {
    name: 'cbrt',
    title: 'Cube root',
    description: 'Returns the real cube root of a (negative for a negative a: cbrt(-27) = -3).',
    aDescription: 'Number to take the cube root of',
    resultDescription: 'The real cube root of a',
    example: { a: 27 },
    compute: Math.cbrt,
  },
  {
    name: 'sin',
    title: 'Sine',
    description: 'Returns the sine of a, where a is in radians.',
    aDescription: RADIANS,
    resultDescription: 'sin(a)',
    example: { a: Math.PI / 2 },
    compute: Math.sin,
  },
  {
    name: 'cos',
    title: 'Cosine',
    description: 'Returns the cosine of a, where a is in radians.',
    aDescription: RADIANS,
    resultDescription: 'cos(a)',
    example: { a: 0 },
    compute: Math.cos,
  },
  {
    name: 'tan',
    title: 'Tangent',
    description: 'Returns the tangent of a, where a is in radians.',
    aDescription: RADIANS,
    resultDescription: 'tan(a)',
    example: { a: Math.PI / 4 },
    compute: Math.tan,
  },
];

/** Input of factorial: the bounds live in the schema so a model sees them in tools/list, with messages saying why. */
const factorialInput = z
  .number()
  .int({ error: (issue) => `factorial needs a whole number, got ${String(issue.input)}` })
  .min(0, { error: (issue) => `factorial of a negative number (${String(issue.input)}) is undefined; a must be 0 or more` })
  .max(MAX_FACTORIAL_N, {
    error: (issue) =>
      `factorial(${String(issue.input)}) is too large: a must be at most ${MAX_FACTORIAL_N}, because ${MAX_FACTORIAL_N + 1}! exceeds the largest 64-bit float (about 1.8e308)`,
  })
  .describe(`Whole number from 0 to ${MAX_FACTORIAL_N}`);

/** Registers cbrt, factorial, sin, cos and tan on `server`. */
export function registerUnaryTools(server: McpServer): void {
  for (const spec of UNARY_TOOLS) {
    server.registerTool(
      spec.name,
      {
        title: spec.title,
        description: spec.description,
        inputSchema: { a: z.number().describe(spec.aDescription) },
        outputSchema: { result: z.number().describe(spec.resultDescription) },
        annotations: { readOnlyHint: true, openWorldHint: false },
        _meta: exampleMeta(spec.example),
      },
      ({ a }) => numberResult(`${spec.name}(${a})`, spec.compute(a)),
    );
  }

  server.registerTool(
    'factorial',
    {
      title: 'Factorial',
      description:
        `Returns a! = 1 × 2 × … × a for a whole number a from 0 to ${MAX_FACTORIAL_N} (0! = 1). ` +
        `Exact up to 22!; larger results are the nearest 64-bit float. ${MAX_FACTORIAL_N + 1}! and beyond overflow, so they are refused.`,
      inputSchema: { a: factorialInput },
      outputSchema: { result: z.number().describe('a!') },
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: exampleMeta({ a: 5 }),
    },
    ({ a }) => numberResult(`factorial(${a})`, factorial(a)),
  );
}
