// The indexer with the real extractor and a vision model on the fake Ollama server: facts only in pictures become searchable, cited by file and page.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOllamaClient } from '../../src/llm/ollama-client.js';
import { createLexicalEmbedder } from '../../src/rag/embed/lexical-embedder.js';
import { indexFolder } from '../../src/rag/index-folder.js';
import { hybridSearch } from '../../src/rag/search/retrievers.js';
import { loadSearchIndex } from '../../src/rag/search/search-index.js';
import { readImageSize } from '../../src/rag/vision/image-size.js';
import { createVisionCaptioner } from '../../src/rag/vision/vision-captioner.js';
import { generateCalls, ollamaChatReply, ollamaVisionRequest, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { chartPng, reportPdf, textPng } from './extract/image-fixtures.js';
import { makeTempFolders, type TempFolders } from './temp-folders.js';

const embedder = createLexicalEmbedder();
let folders: TempFolders;
let server: FakeLlmServer;

beforeAll(async () => {
  folders = await makeTempFolders();
  server = await startFakeOllamaServer({
    replies: (req) => {
      const vision = ollamaVisionRequest(req);
      if (!vision) return undefined;
      const size = readImageSize(vision.images[0]!.data);
      if (size?.height === 2_100) return ollamaChatReply('Ledger: the bread oven was serviced on 12 March by Ferro and Sons of Trieste.');
      if (size?.width === 320) return ollamaChatReply('Bar chart of loaves sold; the third quarter peaks at 4,812 loaves.');
      return ollamaChatReply('A photograph of the quayside cranes painted orange, taken from the ferry at dawn.');
    },
  });
  await writeFile(join(folders.documentsDir, 'report.pdf'), await reportPdf({ chart: await chartPng([50, 90, 170]), scan: await textPng(['Ledger']) }));
  await writeFile(join(folders.documentsDir, 'quay.png'), await chartPng([10, 20, 30, 40], { width: 400, height: 300 }));
  await folders.write('notes.md', '# Notes\n\nThe bakery opens at six.');
});
afterAll(async () => {
  await server.close();
  await folders.remove();
});

describe('indexFolder reading images with a vision model', () => {
  it('indexes captions and transcriptions so a search cites the file and page, and a rebuild asks the model nothing', async () => {
    const captioner = createVisionCaptioner(createOllamaClient({ type: 'ollama', model: 'llava:7b', base_url: server.url, timeout_ms: 10_000, max_retries: 0 }, {}));
    const summary = await indexFolder({ documentsDir: folders.documentsDir, indexDir: folders.indexDir, embedder, captioner });
    expect(summary).toMatchObject({ added: 3, failed: [] });
    expect(generateCalls(server)).toHaveLength(3);
    const index = (await loadSearchIndex(folders.indexDir))!;

    const [chartHit] = await hybridSearch(index, embedder, 'how many loaves were sold in the third quarter', 1);
    expect(chartHit).toMatchObject({ doc: 'report.pdf', page: 1 });
    expect(chartHit!.text).toContain('[Image: Bar chart of loaves sold; the third quarter peaks at 4,812 loaves.]');
    const [scanHit] = await hybridSearch(index, embedder, 'who serviced the bread oven', 1);
    expect(scanHit).toMatchObject({ doc: 'report.pdf', page: 2 });
    const [photoHit] = await hybridSearch(index, embedder, 'orange quayside cranes', 1);
    expect(photoHit).toMatchObject({ doc: 'quay.png', format: 'image' });

    const again = await indexFolder({ documentsDir: folders.documentsDir, indexDir: folders.indexDir, embedder, captioner, rebuild: true });
    expect(again).toMatchObject({ added: 3, failed: [] });
    expect(generateCalls(server)).toHaveLength(3);
  });
});
