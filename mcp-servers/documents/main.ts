// Stdio entry of the documents MCP server: `node dist/mcp-servers/documents/main.js` (settings in CORTEX_* variables, see settings.ts).
import { mkdir } from 'node:fs/promises';
import { errorMessage } from '../../src/errors.js';
import { createDocumentLibrary } from '../../src/rag/document-library.js';
import { openEmbedder } from '../../src/rag/embed/open-embedder.js';
import { chunkingLlm, createIndexerExtractor, openCaptioner } from '../../src/rag/index-folder.js';
import { embeddingLabel } from '../../src/rag/indexer-settings.js';
import { runStdioServer } from '../shared/run-stdio-server.js';
import { buildDocumentsServer } from './build-server.js';
import { createLazyLibrary } from './lazy-library.js';
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
const { documentsDir, indexDir, chunking, vectorWeight } = indexer;
await mkdir(documentsDir, { recursive: true });
let captioner;
try {
  captioner = await openCaptioner(indexer);
} catch (err) {
  log(`images will not be read: ${errorMessage(err)}`);
}
// .url files and convert_webpage_url_into_markdown go through the same fetch, under the profile's network policy.
const extractor = createIndexerExtractor({ ...indexer, captioner });
const library = createLazyLibrary(async () =>
  createDocumentLibrary({
    documentsDir,
    indexDir,
    embedder: await openEmbedder(indexer.embedding, indexer.env),
    extractor,
    chunking,
    ...(vectorWeight === undefined ? {} : { vectorWeight }),
    ...chunkingLlm(indexer),
    log,
  }),
);
const server = buildDocumentsServer({ library, extractor, documentsDir, extractUrl: (url) => extractor.extractUrl(url) });
await runStdioServer(server, { name: 'documents' });
log(`documents ${documentsDir}, index ${indexDir}, embedding ${embeddingLabel(indexer.embedding)}, chunking ${chunking}, images ${captioner?.id ?? 'not read (no vision model, no Tesseract)'}`);
if (indexAtStart) {
  // In the background: tools/list answers at once; the first search waits for this run to finish.
  library.refresh().then(
    ({ notes }) => notes.forEach(log),
    (err: unknown) => log(`indexing at start failed: ${errorMessage(err)}`),
  );
}
