import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ollamaChunk, ollamaDone, ollamaError, type FakeLlmServer, type FakeReply } from '../helpers/fake-ollama-server.js';
import { openServedPage } from './browser.js';
import { tempProject } from './ask-harness.js';
import { ollamaEnv, startPlanningLlm, type ServeRun } from './serve-harness.js';

/** Where the screenshot goes: CORTEX_PAGE_SCREENSHOTS (e.g. docs/) to keep it, else a temp folder. */
const SHOTS_DIR = process.env.CORTEX_PAGE_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'cortex-page-shots-'));

/** The plan's first lines, streamed before the test lets the rest through. */
const HEAD = 'Here is the plan.\n```javascript\nasync function solve() {\n';
const TAIL = '  return "FINAL_ANSWER: streamed " + (40 + 2);\n}\n```\n';

describe('the web page while the model writes (headless Chromium against cortex serve, streamed replies)', () => {
  let llm: FakeLlmServer;
  let serve: ServeRun;
  let browser: BrowserContext;
  let page: Page;
  let releaseTail!: () => void;
  const tailHeld = new Promise<void>((resolve) => (releaseTail = resolve));
  let failedOnce = false;

  /** A decision reply streamed in two parts, the second only once the test has seen the first on the page. */
  async function* heldPlan(): AsyncGenerator<string> {
    yield ollamaChunk(HEAD);
    await tailHeld;
    yield ollamaChunk(TAIL);
    yield ollamaDone({ completionTokens: 30 });
  }

  beforeAll(async () => {
    llm = await startPlanningLlm((prompt, stage): FakeReply | undefined => {
      if (stage !== 'decision') return undefined;
      if (prompt.includes('Fail first')) {
        if (failedOnce) return { frames: [ollamaChunk(HEAD), ollamaChunk(TAIL.replace('streamed', 'after a retry')), ollamaDone()] };
        failedOnce = true;
        return ollamaError(500, 'the fake model is overloaded');
      }
      if (prompt.includes('Stream slowly')) return { frames: heldPlan() };
      return undefined;
    });
    const project = tempProject();
    mkdirSync(project.documentsDir);
    ({ serve, browser, page } = await openServedPage(project.profile, ollamaEnv(llm.url)));
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await llm?.close();
  });

  const turn = () => page.locator('#thread .turn').last();

  it('grows the plan on the page while the model streams it, with the elapsed time and tokens', async () => {
    await page.goto(serve.url);
    await page.fill('#question', 'Stream slowly: what is 40 + 2?');
    await page.press('#question', 'Enter');
    const code = turn().locator('li.attempt pre.code');
    await code.filter({ hasText: 'async function solve() {' }).waitFor();
    // Only the first part has arrived: the code is still being written, and the line under the question says so.
    expect(await code.textContent()).toBe(HEAD);
    expect(await code.getAttribute('class')).toBe('code live');
    expect(await turn().locator('details.steps > summary').textContent()).toMatch(/^Step 1\/3 · writing the plan · \d+ s · \d+ tokens$/);
    expect(await turn().locator('li.attempt .llm').textContent()).toMatch(/ · \d+ s · \d+ tokens so far$/);
    await page.screenshot({ path: join(SHOTS_DIR, 'page-live.png') });

    releaseTail();
    // Attached, not visible: once answered, the steps fold away, and the answer may come before the page is looked at.
    await code.filter({ hasText: 'FINAL_ANSWER: streamed' }).waitFor({ state: 'attached' });
    await turn().locator('.answer .markdown', { hasText: 'streamed 42' }).waitFor();
    expect(await code.getAttribute('class')).toBe('code');
    expect(await turn().locator('li.attempt .llm').textContent()).toMatch(/ answered in [\d.]+ m?s · 30 tokens$/);
  });

  it('says when the model request is retried, and why', async () => {
    await page.fill('#question', 'Fail first, then answer');
    await page.press('#question', 'Enter');
    await turn().locator('.answer .markdown', { hasText: 'after a retry 42' }).waitFor();
    await turn().locator('summary').first().click();
    expect(await turn().locator('li.attempt .retry').first().textContent()).toMatch(/^Retrying \(2\/\d+\) after HTTP 500/);
  });
});
