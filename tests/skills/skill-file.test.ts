// The skills folder as each question lists it: files edited, added or removed between questions are seen at once.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listSkills, writeSkill, type Skill } from '../../src/skills/skill-file.js';

const skill = (name: string, description: string): Skill => ({
  name,
  description,
  question: 'Add {a} and 2',
  servers: ['math'],
  parameters: { a: { default: 1 } },
  code: 'async function solve() { return "FINAL_ANSWER: " + await tools.add({ a: args.a, b: 2 }); }',
  saved_from: { session: 's', saved_at: '2026-11-28T10:00:00.000Z' },
});

describe('listSkills', () => {
  it('sees a skill edited by hand, one added and one removed since the last listing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cortex-skills-'));
    const first = await writeSkill(dir, skill('add-two', 'adds two'));
    await writeSkill(dir, skill('add-three', 'adds three'));
    expect((await listSkills(dir)).skills.map((s) => s.description)).toEqual(['adds three', 'adds two']);

    writeFileSync(first, readFileSync(first, 'utf8').replace('description: adds two', 'description: adds two to a number'));
    rmSync(join(dir, 'add-three.yaml'));
    await writeSkill(dir, skill('add-four', 'adds four'));
    expect((await listSkills(dir)).skills.map((s) => s.description)).toEqual(['adds four', 'adds two to a number']);
  });

  it('reports a file broken since the last listing instead of the skill it held', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cortex-skills-'));
    const path = await writeSkill(dir, skill('add-two', 'adds two'));
    expect((await listSkills(dir)).skills).toHaveLength(1);
    writeFileSync(path, 'name: add-two\n');
    const { skills, problems } = await listSkills(dir);
    expect(skills).toEqual([]);
    expect(problems.join('\n')).toContain(path);
  });

  it('gives each listing its own copy: changing a listed skill does not change the next listing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cortex-skills-'));
    await writeSkill(dir, skill('add-two', 'adds two'));
    (await listSkills(dir)).skills[0]!.servers.push('other');
    expect((await listSkills(dir)).skills[0]!.servers).toEqual(['math']);
  });
});
