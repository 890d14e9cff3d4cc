// The two-number tools: add, subtract, multiply, divide, power, remainder, each taking flat {a, b}.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { exampleMeta } from '../shared/example-meta.js';
import { toolError } from '../shared/tool-result.js';
import { numberResult } from './number-result.js';
import { remainderOf } from './math-functions.js';

interface BinaryToolSpec {
  name: string;
  title: string;
  description: string;
  aDescription: string;
  bDescription: string;
  resultDescription: string;
  example: { a: number; b: number };
  /** How the call reads in an error message, e.g. "7 / 0". */
  expression: (a: number, b: number) => string;
  /** A message when the inputs have no answer at all (e.g. division by zero), else undefined. */
  refuse?: (a: number, b: number) => string | undefined;
  compute: (a: number, b: number) => number;
}

const BINARY_TOOLS: readonly BinaryToolSpec[] = [
  {
    name: 'add',
    title: 'Add two numbers',
    description: 'Returns a + b.',
    aDescription: 'First number to add',
    bDescription: 'Second number to add',
    resultDescription: 'The sum a + b',
    example: { a: 2, b: 3 },
    expression: (a, b) => `${a} + ${b}`,
    compute: (a, b) => a + b,
  },
  {
    name: 'subtract',
    title: 'Subtract two numbers',
    description: 'Returns a − b (b subtracted from a).',
    aDescription: 'Number to subtract from',
    bDescription: 'Number to subtract',
    resultDescription: 'The difference a − b',
    example: { a: 10, b: 4 },
    expression: (a, b) => `${a} - ${b}`,
    compute: (a, b) => a - b,
  },
  {
    name: 'multiply',
    title: 'Multiply two numbers',
    description: 'Returns a × b.',
    aDescription: 'First factor',
    bDescription: 'Second factor',
    resultDescription: 'The product a × b',
    example: { a: 6, b: 7 },
    expression: (a, b) => `${a} * ${b}`,
    compute: (a, b) => a * b,
  },
  {
    name: 'divide',
    title: 'Divide two numbers',
    description: 'Returns a ÷ b as a floating-point number (7 ÷ 2 = 3.5). b must not be 0.',
    aDescription: 'Dividend (the number divided)',
    bDescription: 'Divisor; must not be 0',
    resultDescription: 'The quotient a ÷ b',
    example: { a: 7, b: 2 },
    expression: (a, b) => `${a} / ${b}`,
    refuse: (a, b) => (b === 0 ? `cannot divide ${a} by zero: b must not be 0` : undefined),
    compute: (a, b) => a / b,
  },
  {
    name: 'power',
    title: 'Raise a number to a power',
    description:
      'Returns a raised to the power b (a^b). A negative a needs a whole b (otherwise the result is not real), ' +
      'and the result must stay below about 1.8e308.',
    aDescription: 'Base',
    bDescription: 'Exponent (may be negative or fractional)',
    resultDescription: 'a raised to the power b',
    example: { a: 2, b: 10 },
    expression: (a, b) => `${a} ^ ${b}`,
    compute: (a, b) => a ** b,
  },
  {
    name: 'remainder',
    title: 'Remainder of a division',
    description:
      'Returns a mod b, with the sign of b, as Python\'s a % b: remainder(7, 3) = 1, remainder(-7, 3) = 2, ' +
      'remainder(7, -3) = -2. b must not be 0.',
    aDescription: 'Dividend',
    bDescription: 'Divisor; must not be 0',
    resultDescription: 'a mod b, with the sign of b',
    example: { a: 17, b: 5 },
    expression: (a, b) => `${a} mod ${b}`,
    refuse: (a, b) => (b === 0 ? `remainder of ${a} by zero is undefined: b must not be 0` : undefined),
    compute: remainderOf,
  },
];

/** Registers add, subtract, multiply, divide, power and remainder on `server`. */
export function registerBinaryTools(server: McpServer): void {
  for (const spec of BINARY_TOOLS) {
    server.registerTool(
      spec.name,
      {
        title: spec.title,
        description: spec.description,
        inputSchema: {
          a: z.number().describe(spec.aDescription),
          b: z.number().describe(spec.bDescription),
        },
        outputSchema: { result: z.number().describe(spec.resultDescription) },
        annotations: { readOnlyHint: true, openWorldHint: false },
        _meta: exampleMeta(spec.example),
      },
      ({ a, b }) => {
        const refusal = spec.refuse?.(a, b);
        if (refusal !== undefined) return toolError(refusal);
        return numberResult(spec.expression(a, b), spec.compute(a, b));
      },
    );
  }
}
