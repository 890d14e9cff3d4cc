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
import { ask, jsonOf, ollamaEnv, parseSse, type ServeRun, type SseEvent } from './serve-harness.js';

/** Where the screenshot goes: CORTEX_PAGE_SCREENSHOTS (e.g. docs/) to keep it, else a temp folder. */
const SHOTS_DIR = process.env.CORTEX_PAGE_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), 'cortex-page-shots-'));

/** Reads a streamed answer's events until `until` holds for one; returns them all so far and the reader to go on. */
async function eventsUntil(response: Response, until: (event: SseEvent) => boolean) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended first:\n${text}`);
    text += value;
    const end = text.lastIndexOf('\n\n');
    // Only whole frames are parsed: a chunk may end mid-frame.
    const events = end < 0 ? [] : parseSse(text.slice(0, end + 2));
    if (events.some(until)) {
      const rest = async (): Promise<SseEvent[]> => {
        for (;;) {
          const next = await reader.read();
          if (next.done) return parseSse(text);
          text += next.value;
        }
      };
      return { events, rest };
    }
  }
}

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
    expect(await form.locator('.message').textContent()).toBe('Allow booking.cancel_booking({})? It may change or delete data.');
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

  it('leaves focus in the question box while asking: a space and Enter typed there never press Allow', async () => {
    await page.fill('#question', 'Cancel my booking once more');
    await page.press('#question', 'Enter');
    const form = turn().locator('form.elicitation');
    await form.waitFor();
    expect(await page.evaluate('document.activeElement.id')).toBe('question');
    await page.keyboard.type(' ');
    await page.keyboard.press('Enter');
    expect(await form.locator('.status').textContent()).toBe('');
    await form.locator('button.decline', { hasText: 'Do not allow' }).click();
    await turn().locator('.answer .markdown', { hasText: 'not done' }).waitFor();
    expect(errors).toEqual([]);
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

  it('cancels the request when the page stops the question', async () => {
    const controller = new AbortController();
    const streamed = await ask(serve.url, { question: 'Book me a table' }, { signal: controller.signal });
    const { events } = await eventsUntil(streamed, (e) => e.event === 'elicitation');
    const asked = events.find((e) => e.event === 'elicitation')!.data;
    controller.abort();
    // Once the question has ended (its slot free again), its request is gone: answering it finds nothing waiting.
    for (let poll = 0; (await jsonOf(fetch(`${serve.url}/healthz`))).running > 0; poll++) {
      if (poll >= MAX_HEALTH_POLLS) throw new Error('the stopped question never ended');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const late = await fetch(`${serve.url}/v1/elicitations/${asked.id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"action":"decline"}' });
    expect(late.status).toBe(404);
  });
});
