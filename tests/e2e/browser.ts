// Debian's chromium driven by playwright-core: headless, no network of its own, a fresh profile; never a downloaded browser.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where `npm run setup` (scripts/setup.sh) installs Debian's chromium. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Launches headless Chromium from CHROMIUM_PATH with a fresh user-data dir (Playwright's way to pass --user-data-dir). */
export function launchChromium(): Promise<BrowserContext> {
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'cortex-chromium-')), {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
