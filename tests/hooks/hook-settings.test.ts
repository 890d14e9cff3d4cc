// The profile's `hooks` and `budget` sections: Claude Code's hook shape accepted, mistakes named by file, line and key.
import { describe, expect, it } from 'vitest';
import { parseProfile } from '../../src/config/profiles.js';
import { ConfigError } from '../../src/errors.js';
import { matches } from '../../src/config/hook-settings.js';

function errorOf(text: string): ConfigError {
  try {
    parseProfile(text, 'profiles.yaml');
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('hooks settings', () => {
  it("accepts a Claude Code settings.json hooks block as it is", () => {
    const claude = { hooks: { PreToolUse: [{ matcher: 'mcp__memory__.*', hooks: [{ type: 'command', command: 'check.sh', timeout: 30 }] }], Stop: [{ hooks: [{ type: 'command', command: 'done.sh' }] }] } };
    expect(parseProfile(JSON.stringify(claude), 'profiles.yaml').hooks.PreToolUse![0]!.hooks[0]!.timeout).toBe(30);
  });

  it('names an unknown event, a matcher that is not a regular expression, and a timeout out of range', () => {
    expect(errorOf('hooks:\n  PreToolCall: []\n').message).toMatch(/^profiles\.yaml:2: hooks/);
    expect(errorOf('hooks:\n  PreToolUse:\n    - matcher: "math.(add"\n      hooks: [{type: command, command: x}]\n').message).toContain('expected a regular expression');
    expect(errorOf('hooks:\n  Stop:\n    - hooks: [{type: command, command: x, timeout: 9000}]\n').key).toBe('hooks.Stop.0.hooks.0.timeout');
  });

  it('matches as Claude Code does: empty or * for all, a plain name exactly, anything else as a regular expression', () => {
    const names = ['math.add', 'mcp__math__add', 'add'];
    expect(matches(undefined, names) && matches('', names) && matches('*', names)).toBe(true);
    expect(matches('add', names)).toBe(true);
    expect(matches('ad', names)).toBe(false);
    expect(matches('math\\.(add|sub)', names)).toBe(true);
    expect(matches('mcp__docs__.*', names)).toBe(false);
  });
});

describe('budget settings', () => {
  it('refuses a budget that is not a positive amount', () => {
    expect(errorOf('budget:\n  tokens_per_question: 0\n').key).toBe('budget.tokens_per_question');
    expect(errorOf('budget:\n  usd_per_session: -1\n').key).toBe('budget.usd_per_session');
  });
});
