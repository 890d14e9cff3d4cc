// Stdio entry of the websearch MCP server: `node dist/mcp-servers/websearch/main.js`, configured by env (settings.ts).
import { runStdioServer } from '../shared/run-stdio-server.js';
import { buildWebsearchServer } from './build-server.js';
import { readWebsearchSettings, WebsearchSettingsError } from './settings.js';

let options;
try {
  options = readWebsearchSettings(process.env);
} catch (err) {
  if (!(err instanceof WebsearchSettingsError)) throw err;
  process.stderr.write(`[websearch] bad setting: ${err.message}\n`);
  process.exit(1);
}
await runStdioServer(buildWebsearchServer(options), { name: 'websearch' });
