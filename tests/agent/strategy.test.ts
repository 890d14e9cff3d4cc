import { describe, expect, it } from 'vitest';
import { chooseCatalogue, DECISION_TEMPLATES, resolveStrategy, STRATEGY_NAMES } from '../../src/agent/strategy.js';
import { UsageError } from '../../src/errors.js';
import { TOOLS } from './fakes.js';

describe('resolveStrategy', () => {
  it('maps the profile modes to a strategy', () => {
    expect(resolveStrategy({ planningMode: 'conservative', explorationMode: 'sequential' })).toBe('conservative');
    expect(resolveStrategy({ planningMode: 'exploratory', explorationMode: 'parallel' })).toBe('exploratory-parallel');
    expect(resolveStrategy({ planningMode: 'exploratory', explorationMode: 'sequential' })).toBe('exploratory-sequential');
    expect(resolveStrategy({})).toBe('conservative');
  });

  it('lets an override win over the profile', () => {
    expect(resolveStrategy({ planningMode: 'conservative', override: 'exploratory-sequential' })).toBe('exploratory-sequential');
  });

  it('rejects an unknown override or mode, listing the choices', () => {
    expect(() => resolveStrategy({ override: 'bold' })).toThrow(UsageError);
    expect(() => resolveStrategy({ override: 'bold' })).toThrow(/conservative, exploratory-parallel, exploratory-sequential/);
    expect(() => resolveStrategy({ planningMode: 'reckless' })).toThrow(UsageError);
  });

  it('gives every strategy its own decision template', () => {
    const files = STRATEGY_NAMES.map((name) => DECISION_TEMPLATES[name]);
    expect(new Set(files).size).toBe(STRATEGY_NAMES.length);
  });
});

describe('chooseCatalogue', () => {
  const selected = TOOLS.filter((t) => t.server === 'documents');

  it('keeps the perception selection on a first attempt', () => {
    const choice = chooseCatalogue({ selected, allTools: TOOLS, isRetry: false, memoryFallbackEnabled: true, recentSuccesses: ['add'] });
    expect(choice).toEqual({ tools: selected, narrowed: false });
  });

  it('puts recently successful tools first on a retry, keeping the step\'s tools, when the fallback is enabled', () => {
    const choice = chooseCatalogue({ selected, allTools: TOOLS, isRetry: true, memoryFallbackEnabled: true, recentSuccesses: ['multiply', 'gone_tool'] });
    expect(choice.narrowed).toBe(true);
    expect(choice.tools.map((t) => t.name)).toEqual(['multiply', ...selected.map((t) => t.name)]);
  });

  it('lists a recent tool once when the step\'s tools come from a fresh listing of the servers', () => {
    const relisted = TOOLS.map((t) => ({ ...t }));
    const choice = chooseCatalogue({ selected: relisted, allTools: TOOLS, isRetry: true, memoryFallbackEnabled: true, recentSuccesses: ['add'] });
    expect(choice.tools.map((t) => t.name)).toEqual(['add', ...TOOLS.map((t) => t.name).filter((n) => n !== 'add')]);
  });

  it('does not narrow when the fallback is disabled or no recent success is still offered', () => {
    expect(chooseCatalogue({ selected, allTools: TOOLS, isRetry: true, memoryFallbackEnabled: false, recentSuccesses: ['add'] }).narrowed).toBe(false);
    expect(chooseCatalogue({ selected, allTools: TOOLS, isRetry: true, memoryFallbackEnabled: true, recentSuccesses: ['gone_tool'] })).toEqual({
      tools: selected,
      narrowed: false,
    });
  });
});
