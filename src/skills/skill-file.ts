// Saved plans ("skills") on disk: one readable YAML file per skill in the profile's skills folder.
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { parseConfigText } from '../config/parse.js';
import type { PlanSkill } from '../sandbox/types.js';
import { fileVersion, KeptByVersion } from '../kept-by-version.js';

/** Skills listed at most (`cortex skills`): a folder of thousands must not flood the terminal. */
export const MAX_SKILLS_LISTED = 500;
/** Largest skill file read, in bytes: a skill is a plan, not a data file. */
const MAX_SKILL_FILE_BYTES = 256 * 1024;

const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

export const SkillSchema = z.strictObject({
  name: z.string().regex(NAME_PATTERN),
  description: z.string(),
  /** The question the plan answered, with `{name}` where a parameter's value was. */
  question: z.string(),
  /** The servers the plan calls (perception's choice when it answered). */
  servers: z.array(z.string()),
  /** Named arguments: the values the plan took from the question, with those values as defaults. */
  parameters: z.record(z.string(), z.strictObject({ default: z.union([z.string(), z.number()]) })),
  /** The plan: JavaScript defining `async function solve()`, reading its arguments from `args`. */
  code: z.string(),
  saved_from: z.strictObject({ session: z.string(), saved_at: z.string() }),
});
export type Skill = z.infer<typeof SkillSchema>;

/** @throws UsageError when `name` cannot name a skill (it becomes a file name). */
export function checkSkillName(name: string): string {
  if (!NAME_PATTERN.test(name)) throw new UsageError(`"${name.slice(0, 80)}" cannot name a skill: use letters, digits, - and _ (at most 64, starting with a letter or digit)`);
  return name;
}

function skillPath(dir: string, name: string): string {
  return join(dir, `${checkSkillName(name)}.yaml`);
}

/** Writes `skill` as `<dir>/<name>.yaml` (atomically: a temp file renamed over it). */
export async function writeSkill(dir: string, skill: Skill): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = skillPath(dir, skill.name);
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `# A saved plan of Cortex-R: run it with \`cortex skills run ${skill.name} '{"name": value}'\`.\n${stringify(skill, { lineWidth: 0, blockQuote: 'literal' })}`);
  await rename(temp, path);
  return path;
}

/** Reads one skill. @throws UsageError when there is none by that name; ConfigError when its file is invalid. */
export async function readSkill(dir: string, name: string): Promise<Skill> {
  const path = skillPath(dir, name);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new UsageError(`no skill named "${name}" (see \`cortex skills\`)`);
  }
  if (text.length > MAX_SKILL_FILE_BYTES) throw new UsageError(`${path} is larger than ${MAX_SKILL_FILE_BYTES} bytes, so it is not read as a skill`);
  return parseConfigText(text, path, SkillSchema);
}

/** Every skill in `dir` (at most MAX_SKILLS_LISTED, by name); files that do not read as skills are left out, with why. */
export async function listSkills(dir: string): Promise<{ skills: Skill[]; problems: string[] }> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((f) => f.endsWith('.yaml')).sort().slice(0, MAX_SKILLS_LISTED);
  } catch {
    return { skills: [], problems: [] };
  }
  const skills: Skill[] = [];
  const problems: string[] = [];
  for (const file of names) {
    try {
      skills.push(await readSkillKept(dir, file.slice(0, -'.yaml'.length)));
    } catch (err) {
      problems.push(err instanceof Error ? err.message : String(err));
    }
  }
  return { skills, problems };
}

/** Skill files parsed, by path, with the version of the file each was parsed from; at most this many kept. */
const MAX_PARSED_KEPT = MAX_SKILLS_LISTED;
const parsedSkills = new KeptByVersion<Skill>(MAX_PARSED_KEPT);

/**
 * readSkill, parsing the file again only when it changed since it was last read: the folder is listed for each
 * question (`skills.NAME` in plans), and most questions find every file as it was.
 */
async function readSkillKept(dir: string, name: string): Promise<Skill> {
  const path = skillPath(dir, name);
  const info = await stat(path, { bigint: true }).catch(() => null);
  const version = info ? fileVersion(info) : undefined;
  const kept = version === undefined ? undefined : parsedSkills.get(path, version);
  if (kept) return structuredClone(kept);
  const skill = await readSkill(dir, name);
  if (version !== undefined) parsedSkills.set(path, version, structuredClone(skill));
  return skill;
}

/** The saved skills as plans may call them (`skills.NAME(args)`); files that do not read as skills are left out. */
export async function planSkills(dir: string): Promise<PlanSkill[]> {
  const { skills } = await listSkills(dir);
  return skills.map((s) => ({ name: s.name, question: s.question, servers: s.servers, code: s.code, defaults: skillDefaults(s) }));
}

/** A skill's arguments with their defaults (the values its question was answered with). */
export function skillDefaults(skill: Skill): Record<string, string | number> {
  return Object.fromEntries(Object.entries(skill.parameters).map(([k, p]) => [k, p.default]));
}
