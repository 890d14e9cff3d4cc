// Stdio entry of the math MCP server: `node dist/mcp-servers/math/main.js`.
import { runStdioServer } from '../shared/run-stdio-server.js';
import { buildMathServer } from './build-server.js';

await runStdioServer(buildMathServer(), { name: 'math' });
