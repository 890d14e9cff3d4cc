// Per-stage models and per-model settings as the requests carry them.
import { describe, expect, it } from 'vitest';
import { decide } from '../../src/agent/decision.js';
import { perceive } from '../../src/agent/perception.js';
import type { AgentEvent } from '../../src/agent/types.js';
import { applyModelSettings } from '../../src/llm/model-settings.js';
import { ScriptedLlm } from '../helpers/scripted-llm.js';
import { stagedLlm } from '../../src/llm/staged-llm.js';
import { SERVERS, TOOLS, perceptionJson } from '../agent/fakes.js';

describe('stagedLlm', () => {
  it('sends perception to its own model and the plans to the default one, naming each in the events', async () => {
    const main = new ScriptedLlm({ model: 'planner', turns: ['FINAL_ANSWER: 5'] });
    const small = new ScriptedLlm({ model: 'chooser', turns: [perceptionJson(['math'])] });
    const llm = stagedLlm(main, { perception: small });
    const events: AgentEvent[] = [];
    const emit = (e: AgentEvent) => events.push(e);

    const perception = await perceive({ llm, query: 'What is 2 + 3?', servers: SERVERS, memorySummary: '', events: { stage: 'perception', step: 1, emit } });
    const decision = await decide({
      llm,
      strategy: 'conservative',
      query: 'What is 2 + 3?',
      step: 1,
      maxSteps: 1,
      catalogue: TOOLS.slice(0, 1),
      memorySummary: '',
      perception,
      events: { stage: 'decision', step: 1, emit },
    });

    expect(perception.selected_servers).toEqual(['math']);
    expect(decision.reply).toBe('FINAL_ANSWER: 5');
    expect(small.requests).toHaveLength(1);
    expect(main.requests).toHaveLength(1);
    expect(events.filter((e) => e.type === 'llm_start').map((e) => [e.stage, 'model' in e && e.model])).toEqual([
      ['perception', 'chooser'],
      ['decision', 'planner'],
    ]);
  });

  it('is the default client itself when no stage has a model of its own', () => {
    const main = new ScriptedLlm();
    expect(stagedLlm(main, {})).toBe(main);
  });
});

describe('applyModelSettings', () => {
  it('lets the entry’s temperature win and its max_output_tokens cap the stage’s limit', () => {
    expect(applyModelSettings({ prompt: 'p', temperature: 0, maxOutputTokens: 300 }, { temperature: 0.7, max_output_tokens: 100 })).toMatchObject({ temperature: 0.7, maxOutputTokens: 100 });
    expect(applyModelSettings({ prompt: 'p', temperature: 0 }, { max_output_tokens: 2_000 })).toMatchObject({ temperature: 0, maxOutputTokens: 2_000 });
    expect(applyModelSettings({ prompt: 'p' }, {})).toEqual({ prompt: 'p' });
  });
});
