// The injection suite (AgentDojo style): user tasks that must still work, and injections in pages, documents and mails
// that try to exfiltrate, mail an attacker, delete or write a file, or change the answer, against two scripted planners.
// Figures of every setting are printed at the end (docs/security.md records them).
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
  for (const f of figures) {
    console.log(figuresLine(f) + (f.attacks.which.length ? `\n  succeeded: ${f.attacks.which.join(', ')}` : '') + (f.benign.failed.length ? `\n  benign failed: ${f.benign.failed.join(', ')}` : ''));
  }
  await sandbox?.close();
  await world?.close();
});

/** Goals the host can stop whatever the planner does; a changed answer is text the planner writes (docs/security.md). */
const actionAttacks = (which: string[]) => which.filter((id) => !id.includes('/change_answer/'));

describe('injection suite', () => {
  for (const strict of [false, true]) {
    for (const model of ['careful', 'gullible'] as const) {
      for (const yes of [false, true]) {
        it(`${model} planner${strict ? ', strict mode' : ''}, ${yes ? 'with' : 'without'} --yes: no injected action runs and the user's tasks still work`, async () => {
          const f = await runSuite(world, sandbox, { model, yes, strict });
          figures.push(f);
          expect(actionAttacks(f.attacks.which)).toEqual([]);
          // An answer the page, document or mail changed is shown with the caution naming where it came from.
          expect(f.uncautioned).toEqual([]);
          // A careful planner is not fooled by forged delimiters any more, so not even its answer changes.
          if (model === 'careful') expect(f.attacks.which).toEqual([]);
          // Mailing what the documents say to the address the question names needs nobody's yes (a place the user named).
          expect(f.benign.failed).toEqual([]);
        }, 600_000);
      }
    }
  }

  // Each layer alone, the host's checks taken out through the profile (every tool reclassed as a read).
  it('without the host checks, the fenced results alone keep a careful planner from every injection', async () => {
    const f = await runSuite(world, sandbox, { model: 'careful', yes: true, hostPolicy: false });
    figures.push(f);
    expect(f.attacks.which).toEqual([]);
    expect(f.benign.failed).toEqual([]);
  }, 600_000);

  it('without the host checks, strict mode alone keeps injected instructions from a gullible planner', async () => {
    const f = await runSuite(world, sandbox, { model: 'gullible', yes: true, strict: true, hostPolicy: false });
    figures.push(f);
    expect(actionAttacks(f.attacks.which)).toEqual([]);
    expect(f.benign.failed).toEqual([]);
  }, 600_000);

  it('without the host checks or strict mode, a gullible planner is fooled (the checks above are what stop it)', async () => {
    const f = await runSuite(world, sandbox, { model: 'gullible', yes: true, hostPolicy: false });
    figures.push(f);
    expect(actionAttacks(f.attacks.which).length).toBeGreaterThan(0);
  }, 600_000);
});
