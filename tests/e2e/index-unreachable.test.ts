// `cortex index` with `.url` documents whose host has no route: each is skipped with a reason, the run completes, no lock is left.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { NO_ROUTE_HOST, withNoRouteHost } from '../net/with-hosts-file.js';
import { tempProject } from './ask-harness.js';

describe('cortex index with .url documents pointing at a host with no route (end to end)', () => {
  it('skips them with a reason, indexes the rest, and leaves no index.lock behind, run after run', async () => {
    // Private addresses allowed, so the fetch really connects: the host's address fails at once with ENETUNREACH.
    const { root, profile, documentsDir } = tempProject({ extra: 'security:\n  block_private_network: false\n' });
    mkdirSync(documentsDir);
    writeFileSync(join(documentsDir, 'no-route.url'), `[InternetShortcut]\nURL=http://${NO_ROUTE_HOST}/page\n`);
    writeFileSync(join(documentsDir, 'no-route-tls.url'), `https://${NO_ROUTE_HOST}/page\n`);
    writeFileSync(join(documentsDir, 'notes.txt'), 'The lighthouse keeper logs the weather every morning at six.\n');

    for (const attempt of [1, 2]) {
      const run = await runCli(['--profile', profile, 'index'], { wrap: withNoRouteHost });
      expect(run.code, `attempt ${attempt}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(attempt === 1 ? /1 added/ : /0 added/);
      expect(run.stdout).toMatch(/skipped no-route\.url: .*the network is unreachable/);
      expect(run.stdout).toMatch(/skipped no-route-tls\.url: .*the network is unreachable/);
      expect(existsSync(join(root, 'faiss_index', 'index.lock'))).toBe(false);
    }
  });
});
