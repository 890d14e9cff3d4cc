// Benchmark: `cortex index` (the built CLI) on one hostile document at a time: wall time and peak memory per file.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';
import { HOSTILE_DOCUMENTS } from '../tests/fixtures/hostile-documents.js';
import { pathsYaml } from './instant-llm.js';
import { round, type Figure } from './stats.js';

/** A CLI run in the benchmark is abandoned past this (the per-file deadline is 30 s). */
const CLI_TIMEOUT_MS = 120_000;

/** Indexes `name` alone in a fresh project; GNU time reports elapsed seconds and peak RSS (worker thread included). */
function indexOne(name: string, content: string): { seconds: number; peakMb: number; summary: string } {
  const root = mkdtempSync(join(tmpdir(), 'cortex-hostile-'));
  const documents = join(root, 'documents');
  mkdirSync(documents);
  writeFileSync(join(documents, name), content);
  writeFileSync(join(root, 'profiles.yaml'), `${pathsYaml(root)}mcp_servers: []\n`);
  const run = spawnSync('/usr/bin/time', ['-f', 'TIME %e %M', process.execPath, join(PROJECT_ROOT, 'bin', 'cortex.js'), '--profile', join(root, 'profiles.yaml'), 'index'], {
    encoding: 'utf8',
    timeout: CLI_TIMEOUT_MS,
    env: { ...process.env, NO_COLOR: '1' },
  });
  const time = /TIME ([\d.]+) (\d+)/.exec(run.stderr ?? '');
  if (!time) throw new Error(`${name}: no timing (exit ${run.status}, signal ${run.signal}): ${run.stderr}`);
  return { seconds: Number(time[1]), peakMb: Number(time[2]) / 1024, summary: (run.stdout ?? '').trim().split('\n')[0] ?? '' };
}

export async function runHostileDocumentsBench(): Promise<Figure[]> {
  const figures: Figure[] = [];
  let worst = { name: '', seconds: 0 };
  let peak = { name: '', mb: 0 };
  for (const [name, make] of Object.entries(HOSTILE_DOCUMENTS)) {
    const { seconds, peakMb, summary } = indexOne(name, make());
    process.stderr.write(`  ${name}: ${seconds} s, ${round(peakMb)} MB — ${summary}\n`);
    figures.push({ bench: 'hostile-documents', name: `cortex index ${name}: wall`, value: seconds, unit: 's', runs: 1 });
    if (seconds > worst.seconds) worst = { name, seconds };
    if (peakMb > peak.mb) peak = { name, mb: peakMb };
  }
  figures.push({ bench: 'hostile-documents', name: `worst per-file wall (${worst.name})`, value: worst.seconds, unit: 's', runs: 1 });
  figures.push({ bench: 'hostile-documents', name: `worst peak RSS (${peak.name})`, value: round(peak.mb), unit: 'MB', runs: 1 });
  return figures;
}
