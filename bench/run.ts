// `npm run bench`: runs every benchmark, prints one JSON line per figure, then a markdown summary.
import { cpus, totalmem } from 'node:os';
import type { Figure } from './stats.js';

/** Each benchmark module exports one function returning its figures. */
const BENCHES: Array<[string, () => Promise<Figure[]>]> = [
  ['sandbox', async () => (await import('./sandbox.js')).runSandboxBench()],
  ['cold-start', async () => (await import('./cold-start.js')).runColdStartBench()],
  ['rag', async () => (await import('./rag.js')).runRagBench()],
  ['reply-corpus', async () => (await import('./reply-corpus.js')).runReplyCorpusBench()],
  ['images', async () => (await import('./images.js')).runImagesBench()],
  ['serve', async () => (await import('./serve.js')).runServeBench()],
  ['hostile-documents', async () => (await import('./hostile-documents.js')).runHostileDocumentsBench()],
  ['call-flood', async () => (await import('./call-flood.js')).runCallFloodBench()],
  ['prompt-tokens', async () => (await import('./prompt-tokens.js')).runPromptTokensBench()],
];

const only = process.argv.slice(2);
const figures: Figure[] = [];
for (const [name, run] of BENCHES) {
  if (only.length && !only.includes(name)) continue;
  process.stderr.write(`running ${name} benchmark…\n`);
  for (const figure of await run()) {
    figures.push(figure);
    console.log(JSON.stringify(figure));
  }
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
console.log(`\n### Benchmarks (${new Date().toISOString().slice(0, 10)}, ${machine})\n`);
console.log('| benchmark | figure | median | target |');
console.log('| --- | --- | --- | --- |');
for (const f of figures) {
  const target = f.target ? `${f.target} ${f.ok ? '✓' : '✗'}` : '';
  console.log(`| ${f.bench} | ${f.name}${f.note ? ` (${f.note})` : ''} | ${f.value} ${f.unit} | ${target} |`);
}
