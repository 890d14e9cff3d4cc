import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtPath, PROJECT_ROOT } from '../../src/paths.js';
import { ollamaChatReply, startFakeOllamaServer, type FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { openServedPage } from './browser.js';
import { fenced, isPerception, promptOf, tempProject } from './ask-harness.js';
import { ollamaEnv, type ServeRun } from './serve-harness.js';

/** Where the screenshots go: CORTEX_PAGE_SCREENSHOTS (e.g. docs/) to keep them, else a temp folder. */
const SHOTS_DIR = process.env.CORTEX_PAGE_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'cortex-page-shots-'));

const SEARCH_PLAN = `async function solve() {
  const found = await tools.search_stored_documents({ query: "Zephyr probe launch code", k: 3 });
  const budget = await tools.search_stored_documents({ query: "Hollowmere wind farm maintenance budget", k: 1 });
  return "FURTHER_PROCESSING_REQUIRED: " + found + "\\n\\n" + budget;
}`;

/** The answer of step 2: cites the passages the searches found in launch-notes.md and the PDF, and quotes a long command. */
function citedAnswer(prompt: string): string {
  const notes = /\[Source: launch-notes\.md, ID: [^\]]+\]/.exec(prompt)?.[0] ?? '[Source: missing]';
  const report = /\[Source: wind-report\.pdf, ID: [^\]]+\]/.exec(prompt)?.[0] ?? '[Source: missing]';
  return (
    `The launch code is **ZEBRA-42** ${notes}; the maintenance budget was 3.4 million euros ${report}.\n\n` +
    `The command from the notes:\n\n\`\`\`sh\nlaunch --probe zephyr --code ZEBRA-42 ${'--verbose '.repeat(30)}\n\`\`\``
  );
}

describe('the web page answering from documents (headless Chromium against cortex serve)', () => {
  let llm: FakeLlmServer;
  let serve: ServeRun;
  let browser: BrowserContext;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    llm = await startFakeOllamaServer({
      replies: (req) => {
        if (req.path !== '/api/chat') return undefined;
        if (isPerception(req)) {
          return ollamaChatReply(JSON.stringify({ intent: 'look up', entities: ['Zephyr'], tool_hint: 'search_stored_documents', selected_servers: ['documents'] }));
        }
        const prompt = promptOf(req);
        if (!prompt.includes('Retrieved document text')) return ollamaChatReply(fenced(SEARCH_PLAN));
        return ollamaChatReply(fenced(`async function solve() { return "FINAL_ANSWER: " + ${JSON.stringify(citedAnswer(prompt))}; }`));
      },
    });
    const project = tempProject({
      servers: `  - id: documents\n    script: ${builtPath('mcp-servers/documents/main.js')}\n    description: the user's documents\n`,
    });
    mkdirSync(project.documentsDir);
    writeFileSync(join(project.documentsDir, 'launch-notes.md'), '# Launch notes\n\nThe Zephyr probe launch code is ZEBRA-42. Launch is set for the spring window.\n');
    writeFileSync(join(project.documentsDir, 'weather.md'), '# Weather\n\nThe Zephyr probe launch depends on calm winds at the pad.\n');
    copyFileSync(join(PROJECT_ROOT, 'tests', 'fixtures', 'corpus', 'pdf', 'wind-report.pdf'), join(project.documentsDir, 'wind-report.pdf'));
    writeFileSync(join(project.documentsDir, 'broken.pdf'), 'this is not a PDF');
    symlinkSync('/etc/hostname', join(project.documentsDir, 'linked.md'));
    ({ serve, browser, page } = await openServedPage(project.profile, ollamaEnv(llm.url), errors));
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await llm?.close();
  });

  const turn = () => page.locator('#thread .turn').last();

  it('lists only the cited source, opens its passage with the file in place, and folds the retrieved text', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(serve.url);
    await page.fill('#question', 'What is the Zephyr probe launch code?');
    await page.press('#question', 'Enter');
    await turn().locator('.answer .markdown', { hasText: 'ZEBRA-42' }).waitFor();

    const fold = turn().locator('details.fold', { hasText: /retrieved text, \d+ passages/ });
    expect(await fold.getAttribute('open')).toBeNull();
    const sources = turn().locator('.sources button.source');
    expect(await sources.allTextContents()).toEqual(['launch-notes.md', 'wind-report.pdf, page 2']);
    // The citation in the text became a numbered button opening the same passage.
    expect(await turn().locator('.answer .markdown').textContent()).not.toContain('[Source:');
    await turn().locator('.answer .markdown button.cite', { hasText: '1' }).click();
    expect(await sources.first().getAttribute('aria-expanded')).toBe('true');
    const passage = turn().locator('.sources li').nth(0).locator('.passage');
    await passage.waitFor();
    expect(await passage.locator('.passage-head').textContent()).toBe('launch-notes.md');
    expect(await passage.locator('.passage-text').textContent()).toContain('The Zephyr probe launch code is ZEBRA-42.');
    // A PDF's passage names its page.
    await sources.nth(1).click();
    const pdfPassage = turn().locator('.sources li').nth(1).locator('.passage');
    expect(await pdfPassage.locator('.passage-head').textContent()).toBe('wind-report.pdf · page 2');
    expect(await pdfPassage.locator('.passage-text').textContent()).toContain('3.4 million euros');
    // The answer drew on the documents, and the page says so under it in plain words.
    expect(await turn().locator('.answer .caution').textContent()).toMatch(/^Drawn from launch-notes\.md, weather\.md, wind-report\.pdf: .*can mislead the model/);
    expect(errors).toEqual([]);
  });

  it('marks the documents the indexer refused, with the reason', async () => {
    await page.locator('#documents li.refused', { hasText: 'broken.pdf' }).waitFor();
    expect(await page.locator('#documents li.refused', { hasText: 'broken.pdf' }).locator('.doc-reason').textContent()).toMatch(/^not indexed: /);
    expect(await page.locator('#documents li.refused', { hasText: 'linked.md' }).locator('.doc-reason').textContent()).toBe('not read: symbolic link, not followed');
    expect(await page.locator('#documents li:not(.refused) .doc-name').allTextContents()).toEqual(['launch-notes.md', 'weather.md', 'wind-report.pdf']);
    await page.screenshot({ path: join(SHOTS_DIR, 'page.png') });
  });

  it('follows the system dark mode', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(20, 22, 27)');
    // Unfolded for the screenshot: the steps behind the answer.
    await turn().locator('details.steps > summary').click();
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(SHOTS_DIR, 'page-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(255, 255, 255)');
  });

  it('fits a 390 px phone after a long-code answer: the code scrolls in its own box', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await turn().locator('.answer .markdown', { hasText: 'ZEBRA-42' }).waitFor();
    const widths = () => page.evaluate<{ page: number; window: number }>('({ page: document.documentElement.scrollWidth, window: window.innerWidth })');
    const { page: pageWidth, window: windowWidth } = await widths();
    expect(windowWidth).toBe(390);
    expect(pageWidth).toBeLessThanOrEqual(windowWidth);
    const code = turn().locator('.answer .code-box pre');
    const box = await code.evaluate((pre) => ({ scroll: pre.scrollWidth, client: pre.clientWidth }));
    expect(box.scroll).toBeGreaterThan(box.client);
    // The question box is whole on screen.
    const composer = (await page.locator('#question').boundingBox())!;
    expect(composer.x + composer.width).toBeLessThanOrEqual(windowWidth);
    await page.screenshot({ path: join(SHOTS_DIR, 'page-phone.png') });
    // The sessions and documents open from the top bar, and picking a session closes them again.
    expect(await page.locator('#sidebar').isVisible()).toBe(false);
    await page.click('#menu');
    await page.locator('#sessions a.current', { hasText: 'What is the Zephyr probe launch code?' }).click();
    await page.locator('#sidebar').waitFor({ state: 'hidden' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await turn().locator('details.steps > summary').click();
    expect((await widths()).page).toBeLessThanOrEqual(windowWidth);
    await page.screenshot({ path: join(SHOTS_DIR, 'page-phone-dark.png') });
  });
});
