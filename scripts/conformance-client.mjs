// The client under test for the MCP conformance suite's client scenarios (a documented check, docs/mcp-client.md):
// Cortex-R's own MultiMcp, OAuth sign-in and elicitation, built (npm run build), against the URL the suite appends.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MultiMcp } from '../dist/src/mcp/multi-mcp.js';
import { login } from '../dist/src/mcp/oauth/login.js';
import { OAuthStore } from '../dist/src/mcp/oauth/store.js';

const url = process.argv[2];
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
// The client ID metadata document a user would host and name in the entry (`oauth.clientMetadataUrl`); the suite's
// authorization server knows this one. Servers that do not accept such documents get dynamic registration.
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
const oauth = {
  clientMetadataUrl: CLIENT_METADATA_URL,
  ...(context.client_id ? { clientId: context.client_id } : {}),
  ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
  ...(context.private_key_pem ? { privateKey: context.private_key_pem, signingAlgorithm: context.signing_algorithm ?? 'ES256' } : {}),
  ...(/client-credentials/.test(process.env.MCP_CONFORMANCE_SCENARIO ?? '') ? { grantType: 'client_credentials' } : {}),
};
const spec = { id: 'conformance', transport: 'http', url, command: '', args: [], cwd: process.cwd(), env: {}, description: '', capabilities: [], oauth };
const store = new OAuthStore(join(mkdtempSync(join(tmpdir(), 'cortex-conformance-')), 'oauth'));
// A person who accepts every form as offered (its defaults), as the elicitation scenario expects.
const elicit = async (request) =>
  request.mode === 'form'
    ? { action: 'accept', content: Object.fromEntries(Object.entries(request.fields).filter(([, f]) => f.default !== undefined).map(([k, f]) => [k, f.default])) }
    : { action: 'accept' };

async function connect() {
  const multi = await MultiMcp.start([spec], { oauthStore: store, elicit });
  return { multi, status: multi.statuses()[0] };
}

// The suite's authorization server approves at once: following its redirect is the person signing in.
const signIn = () => login(spec, store, { open: async (u) => void (await fetch(u, { redirect: 'follow' })), say: (line) => console.error(line) });
let { multi, status } = await connect();
// As a person does: sign in each time Cortex-R says so (a server may move to another authorization server meanwhile).
for (let i = 0; i < 3 && status.state === 'failed' && /sign in/.test(status.error ?? ''); i++) {
  await multi.close();
  await signIn();
  ({ multi, status } = await connect());
}
console.error(`state: ${status.state} ${status.error ?? ''} tools: ${status.tools.join(', ')}`);
// The calls the scenario asks for (as a model would write them), else each tool once. The schema-echo tool gets the
// JSON-schema tool's input schema as Cortex-R keeps it (what its prompts and argument checks read).
const focal = multi.listTools().find((tool) => tool.remoteName === 'json_schema_2020_12_tool');
const argumentsFor = (tool) => (tool.name === 'add_numbers' ? { a: 2, b: 3 } : tool.remoteName === 'json_schema_echo' && focal ? { schema: focal.inputSchema } : {});
const calls = context.toolCalls ?? multi.listTools().map((tool) => ({ name: tool.remoteName, arguments: argumentsFor(tool) }));
for (const tool of calls) {
  const call = () => multi.callTool(spec.id, tool.name, tool.arguments);
  let res = await call().catch((err) => ({ error: String(err) }));
  // A tool that needs more access (403 insufficient_scope): the person signs in again, as the message says.
  if (/sign in/.test(res.error ?? '')) {
    await multi.close();
    await signIn();
    ({ multi } = await connect());
    res = await call().catch((err) => ({ error: String(err) }));
  }
  console.error(tool.name, JSON.stringify(res).slice(0, 200));
}
await multi.close();
process.exit(status.state === 'ready' ? 0 : 1);
