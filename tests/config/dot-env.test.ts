// The working folder's .env at start-up: what it sets, what it leaves, and its mistakes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDotEnv } from '../../src/config/dot-env.js';
import { ConfigError } from '../../src/errors.js';

function folderWith(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-dotenv-'));
  writeFileSync(join(dir, '.env'), text);
  return dir;
}

describe('loadDotEnv', () => {
  it('sets the variables a .env names, leaving those already set as they are', () => {
    const dir = folderWith('# keys\nOPENAI_API_KEY=sk-from-file\nexport OPENAI_BASE_URL="http://127.0.0.1:1234/v1"\nGEMINI_API_KEY=from-file\n\nNOTE=\'two words\'\n');
    const env: NodeJS.ProcessEnv = { GEMINI_API_KEY: 'from-shell' };
    const loaded = loadDotEnv({ dir, env });
    expect(loaded?.file).toBe(join(dir, '.env'));
    expect(loaded?.set.sort()).toEqual(['NOTE', 'OPENAI_API_KEY', 'OPENAI_BASE_URL']);
    expect(loaded?.kept).toEqual(['GEMINI_API_KEY']);
    expect(env).toEqual({ GEMINI_API_KEY: 'from-shell', OPENAI_API_KEY: 'sk-from-file', OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1', NOTE: 'two words' });
  });

  it('does nothing without a .env', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(loadDotEnv({ dir: mkdtempSync(join(tmpdir(), 'cortex-dotenv-')), env })).toBeUndefined();
    expect(env).toEqual({});
  });

  it('names the file and line of a line that is not NAME=value, without showing its value', () => {
    const dir = folderWith('OK=1\nthis is not a setting\n');
    const error = (() => {
      try {
        loadDotEnv({ dir, env: {} });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`${join(dir, '.env')}:2: this is not a setting: expected NAME=value (a variable name of letters, digits and _)`);
    expect(() => loadDotEnv({ dir: folderWith('1BAD=secret-value\n'), env: {} })).toThrow(/:1: 1BAD: expected NAME=value/);
  });
});
