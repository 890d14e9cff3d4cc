import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ollamaChatReply, type FakeLlmServer, type FakeReply } from '../helpers/fake-ollama-server.js';
import { openServedPage } from './browser.js';
import { fenced, tempProject } from './ask-harness.js';
import { ollamaEnv, startPlanningLlm, TWO_STEP_PLANS, type ServeRun } from './serve-harness.js';

/** Where the screenshots go: CORTEX_PAGE_SCREENSHOTS (e.g. docs/) to keep them, else a temp folder. */
const SHOTS_DIR = process.env.CORTEX_PAGE_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'cortex-page-shots-'));

/** A plan whose solve() answers `markdown` as it is. */
const answering = (markdown: string) => ollamaChatReply(fenced(`async function solve() { return "FINAL_ANSWER: " + ${JSON.stringify(markdown)}; }`));

/** A 1×1 PNG: an image that loads. */
const DOT_PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const IMAGES_ANSWER = `Here is the chart: ![chart](https://charts.invalid/q3.png) and the dot: ![dot](${DOT_PNG}) and a lost one: ![lost](/no-such-image.png)`;
const TABLE_ANSWER = '| Planet | Moons |\n|---|---|\n| Mars | 2 |\n| Earth | 1 |\n\n```js\nconst moons = 3;\n```';
const HOSTILE_ANSWER =
  'Done. <script>window.pwned = "script"</script><img src=x onerror="window.pwned = \'img\'"> ' +
  '[open me](javascript:window.pwned=\'link\') <a href="javascript:alert(1)">raw link</a> <svg onload="window.pwned=\'svg\'"></svg>';

describe('the web page (headless Chromium against cortex serve)', () => {
  let llm: FakeLlmServer;
  let serve: ServeRun;
  let browser: BrowserContext;
  let page: Page;
  const errors: string[] = [];
  const dialogs: string[] = [];
  /** The second step's plan waits for the test, so the first step can be seen on the page before the answer. */
  let releaseSecondStep!: () => void;
  let secondStepAsked!: () => void;
  const secondStepWaiting = new Promise<void>((resolve) => (secondStepAsked = resolve));

  beforeAll(async () => {
    const gate = new Promise<FakeReply>((resolve) => (releaseSecondStep = () => resolve(ollamaChatReply(fenced(TWO_STEP_PLANS.second)))));
    llm = await startPlanningLlm((prompt, stage) => {
      if (stage !== 'decision') return undefined;
      // Later prompts of a session carry the earlier questions: the newest question is tested first.
      if (prompt.includes('Draw the chart')) return answering(IMAGES_ANSWER);
      if (prompt.includes('Say something hostile')) return answering(HOSTILE_ANSWER);
      if (prompt.includes('Tabulate the moons')) return answering(TABLE_ANSWER);
      if (!prompt.includes('[65,66]') || !prompt.includes('GATED')) return undefined;
      secondStepAsked();
      return gate;
    });
    const project = tempProject();
    mkdirSync(project.documentsDir);
    ({ serve, browser, page } = await openServedPage(project.profile, ollamaEnv(llm.url), errors));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await llm?.close();
  });

  const turns = () => page.locator('#thread .turn');

  it('keeps a thread: each step as it happens, then the answer; a second question is appended; a reload keeps the session', async () => {
    await page.goto(serve.url);
    await expect.poll(() => page.locator('#servers').textContent()).toMatch(/math \(\d+ tools\)/);
    expect(await page.locator('#keys').textContent()).toBe('Enter sends · Shift+Enter adds a line');

    await page.fill('#question', 'GATED: add the ASCII codes of AB');
    await page.press('#question', 'Enter');
    expect(await page.inputValue('#question')).toBe('');
    await secondStepWaiting;
    // Step 1 is on the page, unfolded, while step 2 is still being planned.
    const first = turns().nth(0);
    await first.locator('.call.ok', { hasText: 'strings_to_chars_to_int({"string":"AB"})' }).waitFor();
    await first.locator('pre.code', { hasText: 'tools.strings_to_chars_to_int' }).waitFor();
    await first.locator('.detail', { hasText: 'result for the next step: [65,66]' }).waitFor();
    expect(await first.locator('.step-list').textContent()).toContain('Servers: math');
    expect(await first.locator('.answer').isHidden()).toBe(true);
    expect(await first.locator('details.steps').getAttribute('open')).not.toBeNull();
    // While it works, the folded line says what is happening now.
    await expect.poll(() => first.locator('details.steps > summary').textContent()).toMatch(/^Step 2\/3 · writing the plan · \d+ s · 0 tokens$/);
    // The model request of step 2 shows its model, elapsed time and tokens while it runs; step 1's says how it went.
    expect(await first.locator('li.attempt').nth(1).locator('.llm').textContent()).toMatch(/^qwen2\.5-coder:7b · \d+ s · 0 tokens so far$/);
    expect(await first.locator('li.attempt').nth(0).locator('.llm').textContent()).toMatch(/^qwen2\.5-coder:7b answered in [\d.]+ m?s · 7 tokens$/);

    releaseSecondStep();
    await first.locator('.answer .markdown', { hasText: '131' }).waitFor();
    expect(await first.locator('.question').textContent()).toBe('GATED: add the ASCII codes of AB');
    expect(await first.locator('details.steps > summary').textContent()).toMatch(/^Steps: 2 steps · 2 tool calls · /);
    // Answered: the steps fold under the question.
    expect(await first.locator('details.steps').getAttribute('open')).toBeNull();
    await expect.poll(() => new URL(page.url()).searchParams.get('session')).toMatch(/^\d+-[0-9a-f]+$/);
    const sessionId = new URL(page.url()).searchParams.get('session')!;
    await page.locator('#sessions a.current', { hasText: 'GATED: add the ASCII codes of AB' }).waitFor();
    expect(await page.locator('#sessions a.current .session-time').textContent()).toMatch(/now|ago/);

    // Shift+Enter adds a line and sends nothing; Enter sends.
    await page.fill('#question', 'Add the ASCII codes of AB');
    await page.press('#question', 'Shift+Enter');
    await page.keyboard.type('once more');
    expect(await page.inputValue('#question')).toBe('Add the ASCII codes of AB\nonce more');
    expect(await turns().count()).toBe(1);
    await page.press('#question', 'Enter');
    await turns().nth(1).locator('.answer .markdown', { hasText: '131' }).waitFor();
    expect(new URL(page.url()).searchParams.get('session')).toBe(sessionId);

    await page.reload();
    await turns().nth(1).locator('.answer .markdown', { hasText: '131' }).waitFor();
    expect(await turns().count()).toBe(2);
    expect(await turns().locator('.question').allTextContents()).toEqual(['GATED: add the ASCII codes of AB', 'Add the ASCII codes of AB\nonce more']);
    expect(await turns().nth(0).locator('.call.ok', { hasText: 'add({"a":65,"b":66})' }).count()).toBe(1);

    await page.click('#new-session');
    await page.locator('#thread .empty').waitFor();
    expect(new URL(page.url()).searchParams.get('session')).toBeNull();
    expect(errors).toEqual([]);
  });

  it('renders a markdown answer: a table, and code with a copy button', async () => {
    await page.fill('#question', 'Tabulate the moons of Mars and Earth');
    await page.press('#question', 'Enter');
    const answer = turns().last().locator('.answer .markdown');
    await answer.locator('table').waitFor();
    expect(await answer.locator('th').allTextContents()).toEqual(['Planet', 'Moons']);
    expect(await answer.locator('td').allTextContents()).toEqual(['Mars', '2', 'Earth', '1']);
    expect(await answer.locator('.code-box pre').textContent()).toBe('const moons = 3;\n');
    await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.url });
    await answer.locator('.code-box button.copy').click();
    await answer.locator('.code-box button.copy', { hasText: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe('const moons = 3;\n');
  });

  it('leaves script, event handlers and javascript: links in an answer inert', async () => {
    await page.fill('#question', 'Say something hostile');
    await page.press('#question', 'Enter');
    const answer = turns().last().locator('.answer .markdown');
    await answer.getByText('Done.').waitFor();
    expect(await answer.locator('script').count()).toBe(0);
    expect(await answer.locator('[onerror], [onload]').count()).toBe(0);
    expect(await answer.locator('a[href^="javascript:" i]').count()).toBe(0);
    for (const link of await answer.locator('a').all()) await link.click({ force: true });
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('drops images of an answer that cannot load, and shows the ones that do', async () => {
    await page.fill('#question', 'Draw the chart');
    await page.press('#question', 'Enter');
    const answer = turns().last().locator('.answer .markdown');
    await answer.getByText('Here is the chart:').waitFor();
    // The two that cannot load (another site the page may not load from, a missing file) go; the dot stays.
    await expect.poll(() => answer.locator('img').count()).toBe(1);
    expect(await answer.locator('img').getAttribute('alt')).toBe('dot');
    expect(await answer.locator('img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1);
  });

  /** A DataTransfer holding one file, as a drag from the desktop carries (the page's script context builds it). */
  const droppedFile = (name: string, text: string) =>
    page.evaluateHandle(`(() => { const t = new DataTransfer(); t.items.add(new File([${JSON.stringify(text)}], ${JSON.stringify(name)})); return t; })()`);

  it('indexes a document dropped anywhere on the chat, lighting the chat up while it is dragged, and shows how it went beside the thread', async () => {
    const dropped = await droppedFile('dropped.md', '# Dropped\n\nThe Zephyr probe launch code is ZEBRA-42.\n');
    await page.dispatchEvent('#thread', 'dragenter', { dataTransfer: dropped });
    expect(await page.evaluate('document.body.classList.contains("dragging")')).toBe(true);
    expect(await page.locator('#drop-hint').isVisible()).toBe(true);
    await page.screenshot({ path: join(SHOTS_DIR, 'page-dragging.png') });
    await page.dispatchEvent('#thread', 'drop', { dataTransfer: dropped });
    expect(await page.evaluate('document.body.classList.contains("dragging")')).toBe(false);
    const uploads = page.locator('main #uploads li');
    await uploads.filter({ hasText: 'Indexed dropped.md: 1 chunk' }).waitFor();
    await page.locator('#documents li', { hasText: 'dropped.md' }).waitFor();
    await page.dispatchEvent('.composer', 'drop', { dataTransfer: await droppedFile('setup.exe', 'MZ') });
    await uploads.filter({ hasText: 'setup.exe was not indexed: "setup.exe" is not a supported document' }).waitFor();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 720 });
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await page.screenshot({ path: join(SHOTS_DIR, `page-uploads-${width}.png`) });
    }
    await page.setViewportSize({ width: 1280, height: 720 });
    await uploads.first().locator('button.dismiss').click();
    expect(await uploads.count()).toBe(1);
  });

  it('says so when the session in the address does not exist', async () => {
    await page.goto(`${serve.url}/?session=1700000000-abcdef`);
    const failed = page.locator('#thread .answer.failed');
    await failed.waitFor();
    expect(await failed.locator('h3').textContent()).toBe('This session does not exist');
    await page.click('#new-session');
    await page.locator('#thread .empty').waitFor();
    // The empty page fits a 390 px phone.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  it('says in plain words when the server is not reachable, and keeps the question', async () => {
    await serve.stop();
    await page.fill('#question', 'Is anyone there?');
    await page.press('#question', 'Enter');
    const failed = turns().last().locator('.answer.failed');
    await failed.waitFor();
    expect(await failed.locator('h3').textContent()).toBe('Cortex-R server not reachable — is `cortex serve` running?');
    expect(await page.inputValue('#question')).toBe('Is anyone there?');
  });
});
