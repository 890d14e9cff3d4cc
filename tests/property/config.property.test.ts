// Property: the config parsers and reader return a config or throw a one-line ConfigError naming the file, for any input.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseModels } from '../../src/config/models.js';
import { parseProfile } from '../../src/config/profiles.js';
import { MAX_CONFIG_BYTES, readConfigFile } from '../../src/config/read-config-file.js';
import { ConfigError } from '../../src/errors.js';
import { check, expectTypedError, hostileText, RUNS, tallyLine } from './property-settings.js';

/** Bound: inputs of at most 300 tokens (~3 KB); each parse is then linear in them (aliases capped at 100 expansions). */
const MAX_TOKENS = 300;
const FILE = '/cfg/profiles.yaml';

const YAML_TOKENS = [
  '&a ', '*a', '&b ', '*b', '<<: *a', '!!binary ', '!!str ', '!tag ', '? ', '- ', ': ', '{', '}', '[', ']', ',', '"', "'", '\n', '  ', '    ', '\t',
  '#', '%YAML 1.2\n', '---\n', '...\n', '|', '>', '\uFEFF', '.inf', '-.inf', '.nan', '0x1F', '1e309', '-0', 'null', '~', 'true', 'yes',
  'sandbox:', 'max_tool_calls_per_plan: ', 'strategy:', 'max_steps: ', 'llm:', 'text_generation: ', 'mcp_servers:', 'id: ', 'script: ',
  'paths:', 'models:', 'type: ', 'ollama', 'model: ', 'x', '99999999999999999999', '\u0000', '\r\n', '\\', '%', '@', '`',
];

/** Values a YAML file could give any key, typos and extremes included. */
const anyValue = fc.oneof(
  fc.integer(), fc.double(), fc.constantFrom(Number.POSITIVE_INFINITY, Number.NaN, -0, 2 ** 53 + 1), fc.string({ maxLength: 20 }), fc.boolean(),
  fc.constant(null), fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 6 }), fc.integer(), { maxKeys: 3 }),
);
const SECTIONS = ['agent', 'strategy', 'memory', 'llm', 'persona', 'sandbox', 'rag', 'security', 'paths', 'mcp_servers', 'mcpServers', 'extra'];
const KEYS = ['name', 'max_steps', 'max_lifelines_per_step', 'max_tool_calls_per_plan', 'timeout_ms', 'memory_mb', 'text_generation', 'embedding', 'chunking', 'block_private_network', 'documents', 'id', 'command'];
/** Structurally plausible profiles: known sections and keys with any values, written out as YAML. */
const plausibleProfile = fc
  .dictionary(fc.constantFrom(...SECTIONS), fc.oneof(anyValue, fc.dictionary(fc.constantFrom(...KEYS), anyValue, { maxKeys: 4 }), fc.array(fc.dictionary(fc.constantFrom(...KEYS), anyValue, { maxKeys: 4 }), { maxLength: 3 })), { maxKeys: 6 })
  .map((value) => stringify(value));

function parsesOrConfigError(parse: () => unknown): void {
  try {
    parse();
  } catch (err) {
    expectTypedError(err, ConfigError);
    expect((err as ConfigError).message.startsWith(FILE)).toBe(true);
  }
}

afterAll(() => console.log(`config properties: ${tallyLine()}`));

describe('config parsing, property-based', () => {
  it('parseProfile: any text gives a profile or a one-line ConfigError naming the file', async () => {
    await check('parseProfile hostile text', fc.property(hostileText(YAML_TOKENS, MAX_TOKENS), (text) => parsesOrConfigError(() => parseProfile(text, FILE))), RUNS.pure);
  });

  it('parseProfile: plausible profiles with any values give a profile or a ConfigError with a line number', async () => {
    await check(
      'parseProfile plausible YAML',
      fc.property(plausibleProfile, (text) => {
        try {
          const profile = parseProfile(text, FILE);
          // Limits that pass are finite, bounded integers: nothing lifts a cap.
          for (const v of Object.values(profile.sandbox)) expect(Number.isSafeInteger(v)).toBe(true);
        } catch (err) {
          expectTypedError(err, ConfigError);
          expect((err as ConfigError).message).toMatch(/^\/cfg\/profiles\.yaml:\d+: /);
        }
      }),
      RUNS.pure,
    );
  });

  it('parseModels: any text gives models or a one-line ConfigError', async () => {
    await check('parseModels hostile text', fc.property(hostileText(YAML_TOKENS, MAX_TOKENS), (text) => parsesOrConfigError(() => parseModels(text, FILE))), RUNS.pure);
  });
});

describe('readConfigFile, property-based', () => {
  const folder = mkdtempSync(join(tmpdir(), 'cortex-config-property-'));

  it('any bytes give UTF-8 text (round-tripping the bytes) or a one-line ConfigError with a line', async () => {
    let n = 0;
    await check(
      'readConfigFile random bytes',
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 4096 }), fc.string({ maxLength: 2000, unit: 'binary' }).map((s) => new TextEncoder().encode(s))), (bytes) => {
        const file = join(folder, `case-${n++}.yaml`);
        writeFileSync(file, bytes);
        try {
          const text = readConfigFile(file);
          const withoutBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
          expect(Buffer.from(text, 'utf8').equals(Buffer.from(withoutBom))).toBe(true);
          expect(bytes.length).toBeLessThanOrEqual(MAX_CONFIG_BYTES);
        } catch (err) {
          expectTypedError(err, ConfigError);
          expect((err as ConfigError).message).toMatch(/:\d+: \(whole file\): is not valid UTF-8 on this line/);
        }
      }),
      RUNS.slow * 5,
    );
  });
});
