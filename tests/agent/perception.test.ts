import { describe, expect, it } from 'vitest';
import { PERCEPTION_JSON_SCHEMA, perceive } from '../../src/agent/perception.js';
import { ScriptedLlm, type ScriptedTurn } from '../helpers/scripted-llm.js';
import { perceptionJson, SERVERS } from './fakes.js';

const ALL = ['math', 'documents', 'websearch'];

async function perceiveWith(...turns: ScriptedTurn[]) {
  const llm = new ScriptedLlm({ turns });
  const perception = await perceive({ llm, query: 'What is 2 + 2?', servers: SERVERS, memorySummary: 'None yet.' });
  return { llm, perception };
}

describe('perceive', () => {
  it('asks in JSON mode with the servers, the task and the memory in the prompt', async () => {
    const { llm, perception } = await perceiveWith(
      JSON.stringify({ intent: 'add numbers', entities: ['2', 2], tool_hint: 'add', selected_servers: ['math'] }),
    );
    const request = llm.requests[0]!;
    expect(request.jsonSchema).toEqual(PERCEPTION_JSON_SCHEMA);
    expect(request.prompt).toContain('- math: Arithmetic and number tools; capabilities: add, multiply');
    expect(request.prompt).toContain('What is 2 + 2?');
    expect(request.prompt).toContain('None yet.');
    expect(perception).toMatchObject({ intent: 'add numbers', entities: ['2', '2'], tool_hint: 'add', selected_servers: ['math'], fallback: false });
  });

  it('tells the model today’s date where the user is, from the clock it is given', async () => {
    const llm = new ScriptedLlm({ turns: [perceptionJson(['math'])] });
    const clock = () => new Date('2026-11-28T20:00:00Z');
    await perceive({ llm, query: 'What happened last week?', servers: SERVERS, memorySummary: 'None yet.', clock, userLocale: { timeZone: 'Asia/Tokyo', locale: 'ja-JP' } });
    expect(llm.requests[0]!.prompt).toContain("Today is Sunday, 2026-11-29; the local time is 05:00 (time zone Asia/Tokyo, UTC+09:00); the user's locale is ja-JP.");
  });

  it('drops unknown server ids and keeps the known ones', async () => {
    const { perception } = await perceiveWith(perceptionJson(['weather', 'DOCUMENTS', 'math']));
    expect(perception.selected_servers).toEqual(['math', 'documents']);
    expect(perception.fallback).toBe(false);
  });

  it('selects every server when only unknown ids were chosen, and says so', async () => {
    const { perception } = await perceiveWith(perceptionJson(['weather']));
    expect(perception.selected_servers).toEqual(ALL);
    expect(perception.fallback).toBe(true);
    expect(perception.fallback_reason).toMatch(/no known server.*weather/);
  });

  it('falls back to every server on an answer that is not JSON', async () => {
    const { perception } = await perceiveWith('I think you need the math server.');
    expect(perception).toMatchObject({ selected_servers: ALL, fallback: true });
    expect(perception.fallback_reason).toMatch(/not JSON/);
  });

  it('falls back to every server on JSON of the wrong shape', async () => {
    const { perception } = await perceiveWith(JSON.stringify({ intent: 'x', selected_servers: 'math' }));
    expect(perception).toMatchObject({ selected_servers: ALL, fallback: true });
    expect(perception.fallback_reason).toMatch(/wrong shape.*selected_servers/);
  });

  it('falls back to every server when the request fails', async () => {
    const { perception } = await perceiveWith(() => {
      throw new Error('connection refused');
    });
    expect(perception).toMatchObject({ selected_servers: ALL, fallback: true });
    expect(perception.fallback_reason).toMatch(/connection refused/);
    expect(perception.llm.error).toMatch(/connection refused/);
  });

  it('reads JSON wrapped in a fence with prose around it', async () => {
    const { perception } = await perceiveWith('Sure:\n```json\n' + perceptionJson(['websearch']) + '\n```\nDone.');
    expect(perception).toMatchObject({ selected_servers: ['websearch'], fallback: false });
  });
});
