// Stdio entry of the history MCP server: `node dist/mcp-servers/history/main.js` (CORTEX_MEMORY_DIR: the sessions folder).
import { resolve } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
import { runStdioServer } from '../shared/run-stdio-server.js';
import { buildHistoryServer } from './build-server.js';

const memoryDir = resolve(PROJECT_ROOT, process.env.CORTEX_MEMORY_DIR?.trim() || 'memory');
await runStdioServer(buildHistoryServer({ memoryDir }), { name: 'history' });
