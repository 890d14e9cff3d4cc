// Which tools the person trusts (their results believed, an unclassed tool taken as a read), kept beside the profile.
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { writeFileAtomic } from '../atomic-write.js';
import { fileVersion, KeptByVersion } from '../kept-by-version.js';

/** Entries kept; a file written by hand with more is refused rather than half read. */
const MAX_TRUST_ENTRIES = 1_000;

const TrustFile = z.strictObject({
  /** `<server>.<tool>` or `<server>.*`: results believed; a tool nothing classes is taken as a read. */
  trusted: z.array(z.string().min(1).max(300)).max(MAX_TRUST_ENTRIES).default([]),
  /** Tools the person said never to run. */
  never: z.array(z.string().min(1).max(300)).max(MAX_TRUST_ENTRIES).default([]),
});

export type TrustChoices = z.infer<typeof TrustFile>;

/** Where a profile's choices live: `config/profiles.yaml` → `config/profiles.trust.json`. */
export function trustFileOf(profileFile: string): string {
  return join(dirname(profileFile), `${basename(profileFile, extname(profileFile))}.trust.json`);
}

/** Trust files read, by path; a serving process reads one, so this only bounds a strange caller. */
const MAX_FILES_KEPT = 16;
/** What each file held when last read, with the version of the file it was read from. */
const lastRead = new KeptByVersion<TrustChoices>(MAX_FILES_KEPT);

/**
 * The choices of a profile; none when the file does not exist. Read for each question, so the file is parsed again
 * only when it changed since (another inode, size or modification time: `cortex servers trust` and an edit by hand).
 * @throws ConfigError naming the file when it is malformed.
 */
export async function readTrust(file: string): Promise<TrustChoices> {
  let version: string;
  try {
    version = fileVersion(await stat(file, { bigint: true }));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      lastRead.delete(file);
      return { trusted: [], never: [] };
    }
    throw new ConfigError(file, '', `cannot be read: ${(err as Error).message}`, { cause: err });
  }
  let choices = lastRead.get(file, version);
  if (!choices) {
    choices = await parseTrustFile(file);
    lastRead.set(file, version, choices);
  }
  return { trusted: [...choices.trusted], never: [...choices.never] };
}

async function parseTrustFile(file: string): Promise<TrustChoices> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { trusted: [], never: [] };
    throw new ConfigError(file, '', `cannot be read: ${(err as Error).message}`, { cause: err });
  }
  try {
    return TrustFile.parse(JSON.parse(text));
  } catch (err) {
    throw new ConfigError(file, '', 'expected {"trusted": ["server.tool" or "server.*"], "never": [...]}; fix it or delete it', { cause: err });
  }
}

/** Adds or removes `entry` in one list of the file (written whole, atomically; nothing else in it changes). */
export async function updateTrust(file: string, list: keyof TrustChoices, entry: string, add: boolean): Promise<TrustChoices> {
  const choices = await readTrust(file);
  const others = (Object.keys(choices) as Array<keyof TrustChoices>).filter((k) => k !== list);
  for (const other of add ? others : []) choices[other] = choices[other].filter((e) => e !== entry);
  choices[list] = add ? [...new Set([...choices[list], entry])] : choices[list].filter((e) => e !== entry);
  await writeFileAtomic(file, `${JSON.stringify(choices, null, 2)}\n`);
  return choices;
}
