// `cortex servers login / logout` and a run after them, with the built CLI against an OAuth-protected SDK server.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthStore } from '../../src/mcp/oauth/store.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { runCli } from '../cli/run-cli.js';
import { startOAuthFixture, type OAuthFixture } from '../mcp/oauth-fixture.js';

let fixture: OAuthFixture;
let profile: string;
let cache: string;
beforeAll(async () => {
  fixture = await startOAuthFixture();
  const dir = mkdtempSync(join(tmpdir(), 'cortex-login-'));
  cache = join(dir, 'cache');
  profile = join(dir, 'profiles.yaml');
  writeFileSync(profile, `paths:\n  cache: ${cache}\nmcp_servers:\n  - id: hosted\n    url: ${fixture.url}\n    description: a server that needs sign-in\n`);
});
afterAll(() => fixture.close());

const env = { BROWSER: `${process.execPath} ${join(PROJECT_ROOT, 'tests', 'fixtures', 'fake-browser.mjs')}` };

describe('cortex servers login', () => {
  it('says how to sign in before, signs in through $BROWSER, then the server is ready; logout forgets it', async () => {
    const before = await runCli(['--profile', profile, 'servers', 'list']);
    expect(before.stdout).toContain('needs you to sign in: run `cortex servers login hosted`');
    expect(before.code).toBe(1);

    const signIn = await runCli(['--profile', profile, 'servers', 'login', 'hosted'], { env });
    expect(signIn.stderr).toMatch(/If it does not open, visit:\n\s+http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    expect(signIn.stdout.trim()).toBe('Signed in to "hosted".');
    expect(signIn.code).toBe(0);
    const file = new OAuthStore(join(cache, 'oauth')).fileOf(fixture.url);
    expect(existsSync(file)).toBe(true);

    const after = await runCli(['--profile', profile, 'servers', 'list', '--json']);
    expect(JSON.parse(after.stdout)[0]).toMatchObject({ id: 'hosted', state: 'ready', tools: ['whoami'] });
    expect(after.stdout + after.stderr).not.toMatch(/at-[0-9a-f-]{36}/);

    const out = await runCli(['--profile', profile, 'servers', 'logout', 'hosted']);
    expect(out.stdout.trim()).toBe('Signed out of "hosted".');
    expect(existsSync(file)).toBe(false);
  });
});
