// The list tools: strings_to_chars_to_int, int_list_to_exponential_sum, fibonacci_numbers.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { exampleMeta } from '../shared/example-meta.js';
import { toolResult } from '../shared/tool-result.js';
import {
  charCodes,
  exponentialSum,
  fibonacciNumbers,
  MAX_EXP_ARGUMENT,
  MAX_FIBONACCI_COUNT,
  MAX_LIST_LENGTH,
  MAX_STRING_CHARS,
} from './math-functions.js';
import { numberResult } from './number-result.js';

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

/** Input of fibonacci_numbers: bounds in the schema, so a model sees them, with messages saying why. */
const fibonacciCount = z
  .number()
  .int({ error: (issue) => `n must be a whole number of Fibonacci numbers, got ${String(issue.input)}` })
  .min(0, { error: (issue) => `n must be 0 or more, got ${String(issue.input)}` })
  .max(MAX_FIBONACCI_COUNT, {
    error: (issue) =>
      `n = ${String(issue.input)} is too large: n must be at most ${MAX_FIBONACCI_COUNT}, because later Fibonacci numbers exceed 2^53 and can no longer be represented exactly as JSON numbers`,
  })
  .describe(`How many Fibonacci numbers to return, from 0 to ${MAX_FIBONACCI_COUNT}`);

/** Registers strings_to_chars_to_int, int_list_to_exponential_sum and fibonacci_numbers on `server`. */
export function registerSequenceTools(server: McpServer): void {
  server.registerTool(
    'strings_to_chars_to_int',
    {
      title: 'Character codes of a string',
      description:
        'Returns the Unicode code point of each character of the string, in order ' +
        '(the ASCII values for plain text: "INDIA" → [73, 78, 68, 73, 65]).',
      inputSchema: {
        string: z.string().max(MAX_STRING_CHARS).describe(`Text to convert, at most ${MAX_STRING_CHARS} characters`),
      },
      outputSchema: { result: z.array(z.number().int()).describe('Code point of each character, in order') },
      annotations: READ_ONLY,
      _meta: exampleMeta({ string: 'INDIA' }),
    },
    ({ string }) => toolResult(charCodes(string)),
  );

  server.registerTool(
    'int_list_to_exponential_sum',
    {
      title: 'Sum of exponentials',
      description:
        'Returns the sum of e^x over the numbers (0 for an empty list), e.g. [0, 1] → 1 + e ≈ 3.718. ' +
        `Each number should be at most about ${Math.floor(MAX_EXP_ARGUMENT)}, or the sum overflows.`,
      inputSchema: {
        numbers: z
          .array(z.number())
          .max(MAX_LIST_LENGTH)
          .describe(`Numbers to exponentiate and add (usually integers, e.g. character codes), at most ${MAX_LIST_LENGTH}`),
      },
      outputSchema: { result: z.number().describe('Σ e^x over the numbers') },
      annotations: READ_ONLY,
      _meta: exampleMeta({ numbers: [1, 2, 3] }),
    },
    ({ numbers }) => {
      const largest = numbers.reduce((max, x) => Math.max(max, x), -Infinity);
      return numberResult(
        `the sum of e^x over ${numbers.length} numbers (largest ${largest}; keep each at most ${Math.floor(MAX_EXP_ARGUMENT)})`,
        exponentialSum(numbers),
      );
    },
  );

  server.registerTool(
    'fibonacci_numbers',
    {
      title: 'First n Fibonacci numbers',
      description:
        `Returns the first n Fibonacci numbers, starting 0, 1, 1, 2, 3 (n = 0 → []). n is at most ${MAX_FIBONACCI_COUNT} ` +
        'so that every number stays an exact integer.',
      inputSchema: { n: fibonacciCount },
      outputSchema: { result: z.array(z.number().int()).describe('The first n Fibonacci numbers') },
      annotations: READ_ONLY,
      _meta: exampleMeta({ n: 10 }),
    },
    ({ n }) => toolResult(fibonacciNumbers(n)),
  );
}
