// A reload, a second tab or a phone that dropped the tab rejoins the question running in the session in the address.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ollamaChunk, ollamaDone, type FakeLlmServer, type FakeReply } from '../helpers/fake-ollama-server.js';
import { openServedPage } from './browser.js';
import { tempProject } from './ask-harness.js';
import { ollamaEnv, startPlanningLlm, type ServeRun } from './serve-harness.js';

/** Where the screenshots go: CORTEX_PAGE_SCREENSHOTS (e.g. docs/) to keep them, else a temp folder. */
const SHOTS_DIR = process.env.CORTEX_PAGE_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'cortex-page-shots-'));

/** The plan's first lines, streamed before the test opens its gate. */
const HEAD = 'Here is the plan.\n```javascript\nasync function solve() {\n';
const TAIL = (tag: string) => `  return "FINAL_ANSWER: ${tag} is " + (40 + 2);\n}\n\`\`\`\n`;

describe('rejoining a running question from the page (headless Chromium against cortex serve)', () => {
  let llm: FakeLlmServer;
  let serve: ServeRun;
  let browser: BrowserContext;
  let page: Page;
  const errors: string[] = [];
  /** Gates by question tag (HOLD-<tag>): each plan's stream waits on its own until the test opens it. */
  const gates = new Map<string, { open: () => void; opened: Promise<void> }>();
  const gate = (tag: string) => {
    if (!gates.has(tag)) {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      gates.set(tag, { open, opened });
    }
    return gates.get(tag)!;
  };

  async function* heldPlan(tag: string): AsyncGenerator<string> {
    yield ollamaChunk(HEAD);
    await gate(tag).opened;
    yield ollamaChunk(TAIL(tag));
    yield ollamaDone({ completionTokens: 30 });
  }

  beforeAll(async () => {
    llm = await startPlanningLlm((prompt, stage): FakeReply | undefined => {
      if (stage !== 'decision') return undefined;
      // A session's later prompts carry its earlier questions: the newest tag is the last one named.
      const tag = [...prompt.matchAll(/HOLD-(\w+)/g)].at(-1)?.[1];
      return tag ? { frames: heldPlan(tag) } : undefined;
    });
    const project = tempProject();
    mkdirSync(project.documentsDir);
    ({ serve, browser, page } = await openServedPage(project.profile, ollamaEnv(llm.url), errors));
  });
  afterAll(async () => {
    for (const { open } of gates.values()) open();
    await browser?.close();
    await serve?.stop();
    await llm?.close();
  });

  const turnOf = (p: Page) => p.locator('#thread .turn').last();
  const sessionOf = (p: Page) => new URL(p.url()).searchParams.get('session');

  it('names the session in the address at once; a reload and a second tab show the question and its steps so far, then its answer', async () => {
    await page.goto(serve.url);
    await page.fill('#question', 'HOLD-one: what is 40 + 2?');
    await page.press('#question', 'Enter');
    await turnOf(page).locator('pre.code', { hasText: 'async function solve() {' }).waitFor();
    // The plan is only half written, and the address already names the session.
    expect(sessionOf(page)).toMatch(/^\d+-[0-9a-f]+$/);
    const address = page.url();
    // The side panel lists the new session while its first question runs.
    await page.locator('#sessions a.current', { hasText: 'HOLD-one: what is 40 + 2?' }).waitFor();

    await page.reload();
    const turn = turnOf(page);
    expect(await turn.locator('.question').textContent()).toBe('HOLD-one: what is 40 + 2?');
    // What happened before the reload is shown again: the servers chosen and the plan as written so far.
    await turn.locator('pre.code.live', { hasText: 'async function solve() {' }).waitFor();
    expect(await turn.locator('.step-list').textContent()).toContain('Servers: math');
    expect(await turn.getAttribute('class')).toBe('turn running');
    expect(await page.locator('#stop').isVisible()).toBe(true);
    expect(await page.locator('#thread .turn').count()).toBe(1);

    const second = await browser.newPage();
    second.on('pageerror', (err) => errors.push(err.message));
    await second.goto(address);
    await turnOf(second).locator('pre.code.live', { hasText: 'async function solve() {' }).waitFor();
    await page.setViewportSize({ width: 1280, height: 720 });
    await page.screenshot({ path: join(SHOTS_DIR, 'page-rejoined.png') });

    gate('one').open();
    for (const p of [page, second]) await turnOf(p).locator('.answer .markdown', { hasText: 'one is 42' }).waitFor();
    // Once answered, the session shows the question once, from what was saved.
    await second.reload();
    await turnOf(second).locator('.answer .markdown', { hasText: 'one is 42' }).waitFor();
    expect(await second.locator('#thread .turn').count()).toBe(1);
    await second.close();
    expect(errors).toEqual([]);
  });

  it('goes on answering after the tab that asked is closed, and Stop in another tab ends it for every tab', async () => {
    const asker = await browser.newPage();
    await asker.goto(serve.url);
    await asker.fill('#question', 'HOLD-two: and again?');
    await asker.press('#question', 'Enter');
    await turnOf(asker).locator('pre.code', { hasText: 'async function solve() {' }).waitFor();
    const address = asker.url();
    await page.goto(address);
    await turnOf(page).locator('pre.code.live').waitFor();
    const watcher = await browser.newPage();
    await watcher.goto(address);
    await turnOf(watcher).locator('pre.code.live').waitFor();
    await asker.close();

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await page.screenshot({ path: join(SHOTS_DIR, 'page-rejoined-phone.png') });
    await page.setViewportSize({ width: 1280, height: 720 });

    await page.click('#stop');
    for (const p of [page, watcher]) {
      const answer = turnOf(p).locator('.answer.failed');
      await answer.waitFor();
      expect(await answer.locator('h3').textContent()).toBe('Stopped');
    }
    expect(await page.locator('#ask').isVisible()).toBe(true);
    gate('two').open();
    await watcher.close();
    expect(errors).toEqual([]);
  });
});
