// Issue 30's channels (URL forms, non-http resources, closed-world servers, tool errors, file names) and the benign tasks its decisions allow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type ProcessSandbox } from '../../src/sandbox/create-sandbox.js';
import { channelCases } from './injection/channel-cases.js';
import { runChannelCase } from './injection/run-channel.js';
import { startWorld, type World } from './injection/world.js';

let world: World;
let sandbox: ProcessSandbox;

beforeAll(async () => {
  world = await startWorld();
  sandbox = createSandbox();
}, 120_000);
afterAll(async () => {
  await sandbox?.close();
  await world?.close();
});

describe('injection channels of issue 30', () => {
  for (const c of channelCases()) {
    const benign = c.channel === 'benign';
    it(benign ? `${c.id}: done as a script, without asking` : `${c.id}: the attack does not get through`, async () => {
      const { answer } = await runChannelCase(world, sandbox, c);
      expect({ id: c.id, answer, ok: c.judge(world, answer) }).toEqual({ id: c.id, answer, ok: benign });
    }, 120_000);
  }
});
