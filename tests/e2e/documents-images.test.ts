// End to end: `cortex ask` answers from a fact printed only inside a chart in a PDF, read by the vision model (fake Ollama), citing file and page.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtPath } from '../../src/paths.js';
import { readImageSize } from '../../src/rag/vision/image-size.js';
import { resultOf, runCli } from '../cli/run-cli.js';
import { ollamaChatReply, ollamaVisionRequest, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { chartPng, reportPdf, textPng } from '../rag/extract/image-fixtures.js';
import { fenced, isPerception, ollamaEnv, tempProject } from './ask-harness.js';

const PLAN = `async function solve() {
  const found = await tools.search_stored_documents({ query: "tide gauge record high water", k: 1 });
  const lines = found.split("\\n");
  const i = lines.findIndex((l) => l.includes("record high water"));
  const source = lines.slice(i).find((l) => l.startsWith("[Source:"));
  return "FINAL_ANSWER: " + lines[i].trim() + " " + source.replace(/ score .*/, "");
}`;
const CHART_CAPTION = 'Line chart of the tide gauge: the record high water was 4.31 metres on 9 February.';

let server: FakeLlmServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('cortex ask about a fact only in a picture (end to end)', () => {
  it('reads the chart with llm.vision and answers with the source file and page', async () => {
    server = await startFakeOllamaServer({
      replies: (req) => {
        if (req.path !== '/api/chat') return undefined;
        const vision = ollamaVisionRequest(req);
        if (vision) return ollamaChatReply(readImageSize(vision.images[0]!.data)?.width === 320 ? CHART_CAPTION : 'Harbour office ledger page.');
        if (isPerception(req)) {
          return ollamaChatReply(JSON.stringify({ intent: 'look up', entities: ['tide'], tool_hint: 'search_stored_documents', selected_servers: ['documents'] }));
        }
        return ollamaChatReply(fenced(PLAN));
      },
    });
    const { profile, documentsDir } = tempProject({
      extra: 'llm:\n  vision: eyes\n',
      servers: `  - id: documents\n    script: ${builtPath('mcp-servers/documents/main.js')}\n    description: the user's documents\n`,
    });
    writeFileSync(join(dirname(profile), 'models.yaml'), 'models:\n  eyes: {type: ollama, model: "llava:7b"}\n');
    mkdirSync(documentsDir);
    writeFileSync(
      join(documentsDir, 'harbour.pdf'),
      await reportPdf({ chart: await chartPng([40, 80, 190]), scan: await textPng(['Ledger']), intro: 'Harbour office yearly report.' }),
    );
    const run = await runCli(['--profile', profile, '--json', 'ask', 'According to my documents, what was the record high water at the tide gauge?'], {
      env: ollamaEnv(server.url),
    });
    const json = resultOf(run);
    expect(json.status).toBe('answered');
    expect(json.answer).toBe(`[Image: ${CHART_CAPTION}] [Source: harbour.pdf, ID: harbour.pdf#0, page 1]`);
    const vision = server.requests.map(ollamaVisionRequest).filter((v) => v !== undefined);
    expect(vision.map((v) => v.prompt)).toEqual([expect.stringMatching(/^If there is lot of text in the image/), expect.stringMatching(/^If there is lot of text in the image/)]);
  });
});
