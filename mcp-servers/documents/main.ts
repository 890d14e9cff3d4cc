// Stdio entry of the documents MCP server: `node dist/mcp-servers/documents/main.js` (settings in CORTEX_* variables, see settings.ts).
import { mkdir } from 'node:fs/promises';
import { errorMessage } from '../../src/errors.js';
import { embeddingLabel } from '../../src/rag/indexer-settings.js';
import { runStdioServer } from '../shared/run-stdio-server.js';
import { buildDocumentsServer } from './build-server.js';
import { openReadingStack } from './reading-stack.js';
import { readDocumentsSettings } from './settings.js';

const log = (line: string): void => {
  process.stderr.write(`[documents] ${line}\n`);
};

let settings;
try {
  settings = readDocumentsSettings(process.env);
} catch (err) {
  log(errorMessage(err));
  process.exit(2);
}
const { indexer, indexAtStart } = settings;
const { documentsDir, indexDir, chunking } = indexer;
await mkdir(documentsDir, { recursive: true });
const { extractor, library } = openReadingStack(indexer, log);
const server = buildDocumentsServer({ library, extractor, documentsDir, extractUrl: (url) => extractor.extractUrl(url) });
if (indexAtStart) {
  // In the background once the client is set up (its tools/list is then answered at once); the first search waits
  // for this run to finish, and starts one itself if the client never said it was initialized.
  server.server.oninitialized = () => {
    library.refresh().then(
      ({ notes }) => notes.forEach(log),
      (err: unknown) => log(`indexing at start failed: ${errorMessage(err)}`),
    );
  };
}
await runStdioServer(server, { name: 'documents' });
log(`documents ${documentsDir}, index ${indexDir}, embedding ${embeddingLabel(indexer.embedding)}, chunking ${chunking}`);
