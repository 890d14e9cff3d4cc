// `npm run bench`: runs every benchmark, prints one JSON line per figure, then a markdown summary.
// `npm run bench -- serve --against DIR` also serves from the built checkout DIR and compares the two, alternated.
import { cpus, totalmem } from 'node:os';
import type { Figure } from './stats.js';

/** Each benchmark module exports one function returning its figures. */
const BENCHES: Array<[string, () => Promise<Figure[]>]> = [
  ['sandbox', async () => (await import('./sandbox.js')).runSandboxBench()],
  ['cold-start', async () => (await import('./cold-start.js')).runColdStartBench()],
  ['rag', async () => (await import('./rag.js')).runRagBench()],
  ['reply-corpus', async () => (await import('./reply-corpus.js')).runReplyCorpusBench()],
  ['images', async () => (await import('./images.js')).runImagesBench()],
  ['serve', async () => [...(await (await import('./serve.js')).runServeBench()), ...(against ? await (await import('./serve-pair.js')).runServePairBench(against) : [])]],
  ['hostile-documents', async () => (await import('./hostile-documents.js')).runHostileDocumentsBench()],
  ['call-flood', async () => (await import('./call-flood.js')).runCallFloodBench()],
  ['prompt-tokens', async () => (await import('./prompt-tokens.js')).runPromptTokensBench()],
];

const args = process.argv.slice(2);
const againstAt = args.indexOf('--against');
/** The other built checkout the serve benchmark is paired with, when given. */
const against = againstAt >= 0 ? args[againstAt + 1] : undefined;
if (againstAt >= 0 && !against) throw new Error('--against needs the folder of another built checkout of Cortex-R');
const only = againstAt >= 0 ? args.filter((_, i) => i !== againstAt && i !== againstAt + 1) : args;
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
