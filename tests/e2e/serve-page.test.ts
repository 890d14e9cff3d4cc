import { mkdirSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ollamaChatReply, type FakeLlmServer, type FakeReply } from '../helpers/fake-ollama-server.js';
import { launchChromium } from './browser.js';
import { fenced, tempProject } from './ask-harness.js';
import { ollamaEnv, startPlanningLlm, startServe, TWO_STEP_PLANS, type ServeRun } from './serve-harness.js';

describe('the web page (headless Chromium against cortex serve)', () => {
  let llm: FakeLlmServer;
  let serve: ServeRun;
  let browser: BrowserContext;
  let page: Page;
  /** The second step's plan waits for the test, so the first step can be seen on the page before the answer. */
  let releaseSecondStep!: () => void;
  let secondStepAsked!: () => void;
  const secondStepWaiting = new Promise<void>((resolve) => (secondStepAsked = resolve));

  beforeAll(async () => {
    const gate = new Promise<FakeReply>((resolve) => (releaseSecondStep = () => resolve(ollamaChatReply(fenced(TWO_STEP_PLANS.second)))));
    llm = await startPlanningLlm((prompt, stage) => {
      if (stage !== 'decision' || !prompt.includes('[65,66]') || !prompt.includes('GATED')) return undefined;
      secondStepAsked();
      return gate;
    });
    const project = tempProject();
    mkdirSync(project.documentsDir);
    serve = await startServe(project.profile, ollamaEnv(llm.url));
    browser = await launchChromium();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await llm?.close();
  });

  it('shows each step as it happens, then the answer and the question in the session history', async () => {
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(serve.url);
    await expect.poll(() => page.locator('#servers').textContent()).toMatch(/math \(\d+ tools\)/);

    await page.fill('#question', 'GATED: add the ASCII codes of AB');
    await page.click('#ask');
    await secondStepWaiting;
    // Step 1 is on the page while step 2 is still being planned.
    await page.locator('#steps .call.ok', { hasText: 'strings_to_chars_to_int({"string":"AB"})' }).waitFor();
    await page.locator('#steps pre', { hasText: 'tools.strings_to_chars_to_int' }).waitFor();
    await page.locator('#steps .detail', { hasText: 'result for the next step: [65,66]' }).waitFor();
    expect(await page.locator('#steps').textContent()).toContain('Servers: math');
    expect(await page.locator('#answer').isHidden()).toBe(true);

    releaseSecondStep();
    await page.locator('#answer-text', { hasText: '131' }).waitFor();
    expect(await page.locator('#steps .call.ok', { hasText: 'add({"a":65,"b":66})' }).count()).toBe(1);
    expect(await page.locator('#answer-meta').textContent()).toMatch(/2 attempt\(s\) · 2 tool call\(s\)/);
    await page.locator('#history li', { hasText: 'GATED: add the ASCII codes of AB' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('renders model text as text, never as markup', async () => {
    await page.fill('#question', 'Add the ASCII codes of AB <img src=x onerror="window.pwned=1">');
    await page.click('#ask');
    await page.locator('#answer-text', { hasText: '131' }).waitFor();
    await page.locator('#history li', { hasText: '<img src=x' }).waitFor();
    expect(await page.locator('#history img, #steps img').count()).toBe(0);
    expect(await page.evaluate('window.pwned')).toBeUndefined();
  });

  /** A DataTransfer holding one file, as a drag from the desktop carries (the page's script context builds it). */
  const droppedFile = (name: string, text: string) =>
    page.evaluateHandle(`(() => { const t = new DataTransfer(); t.items.add(new File([${JSON.stringify(text)}], ${JSON.stringify(name)})); return t; })()`);

  it('indexes a document dropped onto the page', async () => {
    await page.dispatchEvent('#dropzone', 'drop', { dataTransfer: await droppedFile('dropped.md', '# Dropped\n\nThe Zephyr probe launch code is ZEBRA-42.\n') });
    await page.locator('#upload-status', { hasText: 'indexed dropped.md: 1 chunks' }).waitFor();
    await page.locator('#documents li', { hasText: 'dropped.md' }).waitFor();
    await page.dispatchEvent('#dropzone', 'drop', { dataTransfer: await droppedFile('setup.exe', 'MZ') });
    await page.locator('#upload-status', { hasText: 'not indexed: "setup.exe" is not a supported document' }).waitFor();
  });
});
