// The injection suite (AgentDojo style): user tasks that must still work, and injections in pages, documents and mails
// that try to exfiltrate, mail an attacker, delete or write a file, or change the answer, against two scripted planners.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type ProcessSandbox } from '../../src/sandbox/create-sandbox.js';
import { figuresLine, runSuite, type Figures } from './injection/run-suite.js';
import { startWorld, type World } from './injection/world.js';

let world: World;
let sandbox: ProcessSandbox;
const figures: Figures[] = [];

beforeAll(async () => {
  world = await startWorld();
  sandbox = createSandbox();
}, 120_000);
afterAll(async () => {
  for (const f of figures) console.log(figuresLine(f), f.attacks.which.length ? `\n  succeeded: ${f.attacks.which.join(', ')}` : '', f.benign.failed.length ? `\n  benign failed: ${f.benign.failed.join(', ')}` : '');
  await sandbox?.close();
  await world?.close();
});

describe('injection suite', () => {
  for (const model of ['careful', 'gullible'] as const) {
    for (const yes of [false, true]) {
      it(`${model} planner, ${yes ? 'with' : 'without'} --yes: no attack succeeds and the user's tasks still work`, async () => {
        const f = await runSuite(world, sandbox, { model, yes });
        figures.push(f);
        expect(f.attacks.which).toEqual([]);
      }, 600_000);
    }
  }
});
