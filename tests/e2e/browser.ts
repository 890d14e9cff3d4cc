// Debian's chromium driven by playwright-core: headless, no network of its own, a fresh profile; never a downloaded browser.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startServe, type ServeRun } from './serve-harness.js';

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

/** `cortex serve` for `profile` (LLM and all in `env`) and a page of a fresh headless Chromium; page errors go to `errors`. */
export async function openServedPage(profile: string, env: NodeJS.ProcessEnv, errors: string[] = []): Promise<{ serve: ServeRun; browser: BrowserContext; page: Page }> {
  const serve = await startServe(profile, env);
  const browser = await launchChromium();
  const page = await browser.newPage();
  page.on('pageerror', (err) => errors.push(err.message));
  return { serve, browser, page };
}
