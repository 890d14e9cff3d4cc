// The person's trust choices beside the profile: read, added to, taken back, and a broken file named.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrust, trustFileOf, updateTrust } from '../../src/policy/trust-store.js';

describe('trust store', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'cortex-trust-'));

  it('lives beside the profile, named after it', () => {
    expect(trustFileOf('/home/me/config/profiles.yaml')).toBe('/home/me/config/profiles.trust.json');
  });

  it('starts empty, keeps what is added, moves an entry between trusted and never, and takes it back', async () => {
    const file = join(dir(), 'p.trust.json');
    expect(await readTrust(file)).toEqual({ trusted: [], never: [] });
    await updateTrust(file, 'trusted', 'office.*', true);
    await updateTrust(file, 'trusted', 'office.*', true);
    expect(await readTrust(file)).toEqual({ trusted: ['office.*'], never: [] });
    await updateTrust(file, 'never', 'office.*', true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ trusted: [], never: ['office.*'] });
    await updateTrust(file, 'never', 'office.*', false);
    expect(await readTrust(file)).toEqual({ trusted: [], never: [] });
  });

  it('names the file when it is not a trust list, and does not overwrite it', async () => {
    const file = join(dir(), 'p.trust.json');
    writeFileSync(file, '{"trusted": "everything"}');
    await expect(readTrust(file)).rejects.toThrow(`${file}: expected {"trusted"`);
    await expect(updateTrust(file, 'trusted', 'x.*', true)).rejects.toThrow(file);
    expect(readFileSync(file, 'utf8')).toBe('{"trusted": "everything"}');
  });

  it('reads the file again when a person edits it by hand between questions, and when it is deleted', async () => {
    const file = join(dir(), 'p.trust.json');
    await updateTrust(file, 'trusted', 'office.*', true);
    expect(await readTrust(file)).toEqual({ trusted: ['office.*'], never: [] });
    writeFileSync(file, '{"trusted": ["office.read"], "never": ["office.delete"]}');
    expect(await readTrust(file)).toEqual({ trusted: ['office.read'], never: ['office.delete'] });
    rmSync(file);
    expect(await readTrust(file)).toEqual({ trusted: [], never: [] });
  });

  it('gives each reader its own lists: changing one does not change what the next question reads', async () => {
    const file = join(dir(), 'p.trust.json');
    await updateTrust(file, 'never', 'office.delete', true);
    (await readTrust(file)).never.push('office.read');
    expect(await readTrust(file)).toEqual({ trusted: [], never: ['office.delete'] });
  });
});
