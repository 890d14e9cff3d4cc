// A tool server asks the person for input mid-question (elicitation) under `cortex serve`: the page streaming the
// question shows the form and sends the answer back; a question without a page stream is declined.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeLlmServer } from '../helpers/fake-ollama-server.js';
import { tempProject } from './ask-harness.js';
import { BOOKING_SERVER, startBookingLlm } from './booking-harness.js';
import { openServedPage } from './browser.js';
import { ask, eventsUntil, jsonOf, ollamaEnv, parseSse, sessionOf, stopQuestion, type ServeRun, type SseEvent } from './serve-harness.js';

/** Where the screenshot goes: CORTEX_PAGE_SCREENSHOTS (e.g. docs/) to keep it, else a temp folder. */
const SHOTS_DIR = process.env.CORTEX_PAGE_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'cortex-page-shots-'));

/** Polls of /healthz while a stopped question ends (50 ms apart: 30 s on a busy machine). */
const MAX_HEALTH_POLLS = 600;

const answerOf = (events: SseEvent[]) => events.find((e) => e.event === 'result')?.data;

describe('a server asking the person during a question under cortex serve (elicitation)', () => {
  let llm: FakeLlmServer;
  let serve: ServeRun;
  let browser: BrowserContext;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    llm = await startBookingLlm();
    const project = tempProject({ servers: BOOKING_SERVER });
    mkdirSync(project.documentsDir);
    ({ serve, browser, page } = await openServedPage(project.profile, ollamaEnv(llm.url), errors));
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await llm?.close();
  });

  const turn = () => page.locator('#thread .turn').last();

  it('shows the form on the page; the person fills it and the answer uses what they typed', async () => {
    await page.goto(serve.url);
    await page.fill('#question', 'Book me a table');
    await page.press('#question', 'Enter');
    const form = turn().locator('form.elicitation');
    await form.waitFor();
    expect(await form.locator('.asker').textContent()).toBe('The tool server “booking” asks:');
    expect(await form.locator('.message').textContent()).toBe('Who is the table for?');
    // Typed from the schema: a text box for the name, a whole-number box for the guests, both marked required.
    const name = form.locator('input[name="name"]');
    const guests = form.locator('input[name="guests"]');
    expect(await name.getAttribute('type')).toBe('text');
    expect(await guests.getAttribute('type')).toBe('number');
    expect(await guests.getAttribute('step')).toBe('1');
    expect(await guests.getAttribute('min')).toBe('1');
    expect(await form.locator('.required').count()).toBe(2);
    await name.fill('Ada');
    await guests.fill('4');
    await page.screenshot({ path: join(SHOTS_DIR, 'page-elicitation.png') });
    await form.locator('button.accept').click();
    await turn().locator('.answer .markdown', { hasText: 'booked for Ada, 4 guests' }).waitFor();
    expect(await form.locator('.status').textContent()).toBe('Sent.');
    expect(await form.locator('button.accept').isDisabled()).toBe(true);
    expect(errors).toEqual([]);
  });

  it('shows a waiting form again after a reload, and takes the answer there', async () => {
    await page.goto(serve.url);
    await page.fill('#question', 'Book me a table');
    await page.press('#question', 'Enter');
    await turn().locator('form.elicitation').waitFor();
    await page.reload();
    const form = turn().locator('form.elicitation');
    await form.waitFor();
    expect(await turn().locator('.question').textContent()).toBe('Book me a table');
    expect(await form.locator('.message').textContent()).toBe('Who is the table for?');
    await form.locator('input[name="name"]').fill('Grace');
    await form.locator('input[name="guests"]').fill('5');
    await form.locator('button.accept').click();
    await turn().locator('.answer .markdown', { hasText: 'booked for Grace, 5 guests' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('declines from the page, and the tool says it was not booked', async () => {
    await page.fill('#question', 'Book me another table');
    await page.press('#question', 'Enter');
    const form = turn().locator('form.elicitation');
    await form.waitFor();
    await form.locator('button.decline').click();
    await turn().locator('.answer .markdown', { hasText: 'not booked (decline)' }).waitFor();
    expect(await form.locator('.status').textContent()).toBe('Declined.');
  });

  it("asks the page before a tool that needs the person's yes, and runs it only when allowed", async () => {
    await page.fill('#question', 'Cancel my booking');
    await page.press('#question', 'Enter');
    const form = turn().locator('form.elicitation');
    await form.waitFor();
    expect(await form.locator('.asker').textContent()).toBe('Cortex-R asks before running a tool:');
    // The question names the tool, what this page session has read (the earlier bookings), and the arguments whole.
    const message = await form.locator('.message').textContent();
    // Cancelling after reading earlier bookings of this server destroys there, so the page is told why it is asked.
    expect(message).toMatch(/^Allow booking\.cancel_booking\?\n {2}This question has read: private data \(earlier answers in this session\); text written outside Cortex-R \(earlier answers in this session\)\n {2}Careful: after reading outside content, it would change what booking keeps\.\n {2}Arguments: none$/);
    // The card does not take the focus: a space typed for the next question stays in the question box.
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('question');
    await page.keyboard.type(' ');
    expect(await page.inputValue('#question')).toBe(' ');
    expect(await form.locator('button.accept').isDisabled()).toBe(false);
    await page.fill('#question', '');
    await form.locator('button.accept', { hasText: 'Allow' }).click();
    await turn().locator('.answer .markdown', { hasText: 'booking cancelled' }).waitFor();

    await page.fill('#question', 'Cancel my booking again');
    await page.press('#question', 'Enter');
    await turn().locator('form.elicitation').waitFor();
    await turn().locator('form.elicitation button.decline', { hasText: 'Do not allow' }).click();
    await turn().locator('.answer .markdown', { hasText: 'not done' }).waitFor();
    expect(await turn().locator('.answer .markdown').textContent()).toContain('the user declined it');
    expect(errors).toEqual([]);
  });

  it('shows the full address of a link in an answer drawn on outside content, and opens it only through a second click', async () => {
    const tabs = browser.pages().length;
    await page.fill('#question', "What are today's specials?");
    await page.press('#question', 'Enter');
    const link = turn().locator('.answer .markdown a', { hasText: 'the menu' });
    await link.waitFor();
    expect(await link.textContent()).toBe('the menu (https://menu.example/today)');
    expect(await turn().locator('.answer .caution').first().textContent()).toContain('what booking returned');
    await link.click();
    const check = turn().locator('.link-check');
    expect(await check.textContent()).toBe('From text written outside Cortex-R: open https://menu.example/today');
    expect(browser.pages().length).toBe(tabs);
    expect(await check.locator('a').getAttribute('href')).toBe('https://menu.example/today');
  });

  it('refuses such a tool for a plain JSON question, which has nobody to ask', async () => {
    const result = await jsonOf(ask(serve.url, { question: 'Cancel my booking' }, { sse: false }));
    expect(result.answer).toContain('nobody can be asked');
  });

  it('shows a URL request as a link the person opens themselves, never opened for them', async () => {
    const tabs = browser.pages().length;
    await page.fill('#question', 'Pay the bill');
    await page.press('#question', 'Enter');
    const form = turn().locator('form.elicitation');
    await form.waitFor();
    const link = form.locator('a.url');
    expect(await link.textContent()).toBe('https://pay.example.com/confirm?id=7');
    expect(await link.getAttribute('href')).toBe('https://pay.example.com/confirm?id=7');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    await form.locator('button.accept').click();
    await turn().locator('.answer .markdown', { hasText: 'payment confirmed (accept)' }).waitFor();
    expect(browser.pages()).toHaveLength(tabs);
  });

  it('declines for a plain JSON question, which has no page to ask on', async () => {
    const result = await jsonOf(ask(serve.url, { question: 'Book me a table' }, { sse: false }));
    expect(result).toMatchObject({ status: 'answered', answer: 'not booked (decline)' });
  });

  it("refuses an answer from a foreign origin and a form that does not fit, then takes the page's own", async () => {
    const streamed = await ask(serve.url, { question: 'Book me a table' });
    const { events, rest } = await eventsUntil(streamed, (e) => e.event === 'elicitation');
    const asked = events.find((e) => e.event === 'elicitation')!.data;
    expect(asked).toMatchObject({ server: 'booking', mode: 'form', required: ['name', 'guests'] });
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${serve.url}/v1/elicitations/${asked.id}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

    const foreign = await post({ action: 'accept', content: { name: 'Mallory', guests: 9 } }, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect((await jsonOf(foreign)).error.code).toBe('origin_refused');
    const wrong = await post({ action: 'accept', content: { name: 'Ada', guests: 'four' } });
    expect(wrong.status).toBe(400);
    expect((await jsonOf(wrong)).error.message).toMatch(/^guests: /);

    expect((await post({ action: 'accept', content: { name: 'Ada', guests: 2 } })).status).toBe(200);
    const all = await rest();
    expect(all.find((e) => e.event === 'elicitation_end')?.data).toEqual({ id: asked.id, action: 'accept' });
    expect(answerOf(all)).toMatchObject({ status: 'answered', answer: 'booked for Ada, 2 guests' });
    expect((await post({ action: 'decline' })).status).toBe(404);
  });

  it('never shows one question\'s request to another: a second question calling the same server meanwhile is declined', async () => {
    const first = await ask(serve.url, { question: 'Book me a table' });
    const { events, rest } = await eventsUntil(first, (e) => e.event === 'elicitation');
    const asked = events.find((e) => e.event === 'elicitation')!.data;
    // While the first question's form waits, a second question asks the same server: MCP does not say which call asks.
    const second = parseSse(await (await ask(serve.url, { question: 'Book me a table too' })).text());
    expect(second.some((e) => e.event === 'elicitation')).toBe(false);
    expect(answerOf(second)).toMatchObject({ status: 'answered', answer: 'not booked (decline)' });

    const answered = await fetch(`${serve.url}/v1/elicitations/${asked.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'accept', content: { name: 'Ada', guests: 3 } }),
    });
    expect(answered.status).toBe(200);
    expect(answerOf(await rest())).toMatchObject({ status: 'answered', answer: 'booked for Ada, 3 guests' });
  });

  it('cancels the request when the question is stopped', async () => {
    const streamed = await ask(serve.url, { question: 'Book me a table' });
    const { events } = await eventsUntil(streamed, (e) => e.event === 'elicitation');
    const asked = events.find((e) => e.event === 'elicitation')!.data;
    expect((await stopQuestion(serve.url, sessionOf(streamed))).status).toBe(200);
    // Once the question has ended (its slot free again), its request is gone: answering it finds nothing waiting.
    for (let poll = 0; (await jsonOf(fetch(`${serve.url}/healthz`))).running > 0; poll++) {
      if (poll >= MAX_HEALTH_POLLS) throw new Error('the stopped question never ended');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const late = await fetch(`${serve.url}/v1/elicitations/${asked.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"action":"decline"}' });
    expect(late.status).toBe(404);
  });
});
