// Builds the math MCP server (DESIGN §3.4): arithmetic, list and thumbnail tools, ready for any transport.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerBinaryTools } from './binary-tools.js';
import { registerSequenceTools } from './sequence-tools.js';
import { registerThumbnailTool } from './thumbnail-tool.js';
import { registerUnaryTools } from './unary-tools.js';
import { VERSION } from '../../src/version.js';

/** Server name reported in the MCP initialize handshake. */
export const MATH_SERVER_NAME = 'cortex-r-math';

/**
 * Most array elements one tools/call may carry; the list tools accept 100,000 numbers, and the SDK's own
 * counter refuses a deeper or larger argument tree before zod has to walk it.
 */
const MAX_TOOL_INPUT_ELEMENTS = 200_000;

/**
 * A new McpServer offering add, subtract, multiply, divide, power, remainder, cbrt, factorial, sin, cos, tan,
 * strings_to_chars_to_int, int_list_to_exponential_sum, fibonacci_numbers and create_thumbnail. Every tool
 * declares an outputSchema, returns `{result}` as structured content and JSON text, answers bad input with an
 * isError result, and carries example arguments in `_meta["cortex-r/example"]`. Not yet connected.
 */
export function buildMathServer(): McpServer {
  const server = new McpServer(
    { name: MATH_SERVER_NAME, title: 'Cortex-R math', version: VERSION },
    {
      capabilities: { tools: {} },
      maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS,
      instructions: 'Arithmetic, trigonometry (radians), factorials, Fibonacci numbers, character codes and image thumbnails.',
    },
  );
  registerBinaryTools(server);
  registerUnaryTools(server);
  registerSequenceTools(server);
  registerThumbnailTool(server);
  return server;
}
