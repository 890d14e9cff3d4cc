// The config reader: regular files only, checked on the open descriptor; a bounded read; strict UTF-8; file, line and key in every error.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { parseModels } from '../../src/config/models.js';
import { MAX_CONFIG_BYTES, readConfigFile } from '../../src/config/read-config-file.js';
import { ConfigError } from '../../src/errors.js';
import { runCli } from '../cli/run-cli.js';

const dir = () => mkdtempSync(join(tmpdir(), 'cortex-read-config-'));

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).message;
  }
  throw new Error('no ConfigError was thrown');
}

/** A FIFO no process ever writes to: reading it the ordinary way blocks forever. */
function fifo(): string {
  const path = join(dir(), 'profiles.yaml');
  execFileSync('mkfifo', [path]);
  return path;
}

describe('readConfigFile', () => {
  it('reads a regular UTF-8 file, dropping a byte-order mark', () => {
    const file = join(dir(), 'p.yaml');
    writeFileSync(file, '\uFEFFagent:\n  name: Zoë\n');
    expect(readConfigFile(file)).toBe('agent:\n  name: Zoë\n');
  });

  it('refuses a directory, naming the file, line and key', () => {
    const folder = dir();
    expect(messageOf(() => readConfigFile(folder))).toBe(`${folder}:1: (whole file): is a directory, not a regular file; give the path of a YAML file`);
  });

  it('refuses /dev/zero unread, and a symlink to it', () => {
    expect(messageOf(() => readConfigFile('/dev/zero'))).toMatch(/^\/dev\/zero:1: \(whole file\): is a character device, not a regular file/);
    const link = join(dir(), 'profiles.yaml');
    symlinkSync('/dev/zero', link);
    expect(messageOf(() => readConfigFile(link))).toContain('is a character device');
  });

  it('refuses a FIFO without waiting for a writer', () => {
    const path = fifo();
    expect(messageOf(() => readConfigFile(path))).toBe(`${path}:1: (whole file): is a named pipe (FIFO), not a regular file; give the path of a YAML file`);
  });

  it('accepts a file of exactly the size limit and refuses one byte more, naming the line the limit falls on', () => {
    const file = join(dir(), 'p.yaml');
    const line = `# ${'x'.repeat(97)}\n`; // 100 bytes
    writeFileSync(file, line.repeat(MAX_CONFIG_BYTES / 100));
    expect(readConfigFile(file)).toHaveLength(MAX_CONFIG_BYTES);
    writeFileSync(file, `${line.repeat(MAX_CONFIG_BYTES / 100)}x`);
    expect(messageOf(() => readConfigFile(file))).toBe(
      `${file}:10001: (whole file): larger than the 1,000,000-byte limit for a config file (reached on this line)`,
    );
  });

  it('refuses invalid UTF-8, naming the line, instead of turning it into U+FFFD', () => {
    const file = join(dir(), 'p.yaml');
    writeFileSync(file, Buffer.concat([Buffer.from('agent:\n  name: ok\n  description: caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    expect(messageOf(() => readConfigFile(file))).toBe(`${file}:3: (whole file): is not valid UTF-8 on this line; save the file as UTF-8`);
  });

  it('names a missing file', () => {
    const file = join(dir(), 'none.yaml');
    expect(messageOf(() => readConfigFile(file))).toBe(`${file}: file not found`);
  });
});

describe('loadConfig, mistakes blamed where they are', () => {
  function project(profile: string, models?: string): string {
    const root = dir();
    mkdirSync(join(root, 'config'));
    writeFileSync(join(root, 'config', 'profiles.yaml'), profile);
    if (models !== undefined) writeFileSync(join(root, 'config', 'models.yaml'), models);
    return join(root, 'config', 'profiles.yaml');
  }

  it('blames a missing model key on the profile line that names it', () => {
    const profilePath = project('agent:\n  name: x\nllm:\n  text_generation: gpt9\n', 'models:\n  local: {type: ollama, model: m}\n');
    expect(messageOf(() => loadConfig({ profilePath }))).toBe(
      `${profilePath}:4: llm.text_generation: names the model "gpt9", which ${profilePath.replace('profiles', 'models')} does not define (defined there: local); or use "auto"`,
    );
  });

  it('blames a stage model that names nothing on its profile line, and takes a provider model there', () => {
    const profilePath = project('llm:\n  perception: openai:gpt-4.1-mini\n  decision: gpt9\n', 'models:\n  local: {type: ollama, model: m}\n');
    expect(messageOf(() => loadConfig({ profilePath }))).toBe(
      `${profilePath}:3: llm.decision: names the model "gpt9", which ${profilePath.replace('profiles', 'models')} does not define (defined there: local); or use a provider model such as openai:gpt-4.1-mini`,
    );
  });

  it('blames a model setting of the wrong type on its models.yaml line and key', () => {
    const profilePath = project('{}\n', 'models:\n  local:\n    type: openai\n    model: m\n    temperature: hot\n');
    expect(messageOf(() => loadConfig({ profilePath }))).toMatch(/models\.yaml:5: models\.local\.temperature: /);
  });

  it('blames an embedding model without embedding_model on the profile line that names it', () => {
    const profilePath = project('llm:\n  embedding: local\n', 'models:\n  local: {type: ollama, model: m}\n');
    expect(messageOf(() => loadConfig({ profilePath }))).toMatch(/profiles\.yaml:2: llm\.embedding: names the model "local", whose entry in .*models\.yaml has no embedding_model$/);
  });

  it('takes an empty profile as every default, with a warning; {} says so on purpose', () => {
    const empty = loadConfig({ profilePath: project('# nothing yet\n\n') });
    expect(empty.profile.sandbox.max_tool_calls_per_plan).toBe(5);
    expect(empty.warnings).toEqual([expect.stringMatching(/profiles\.yaml is empty .* every setting has its default; write \{\} in it/)]);
    expect(loadConfig({ profilePath: project('{}\n') }).warnings).toEqual([]);
  });

  it('names the line of the nearest parent when a required key is missing', () => {
    expect(messageOf(() => parseModels('models:\n  local:\n    type: ollama\n', 'models.yaml'))).toMatch(/^models\.yaml:3: models\.local\.model: /);
  });
});

describe('cortex with a hostile --profile (end to end)', () => {
  it.each([
    ['/dev/zero', () => '/dev/zero', /is a character device/],
    ['a FIFO', fifo, /is a named pipe \(FIFO\)/],
    ['a directory', dir, /is a directory/],
  ])('refuses %s at once with exit code 2 and one line naming it', async (_what, path, message) => {
    const run = await runCli(['--profile', path(), 'servers', 'list']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });

  it('prints the empty-profile warning and goes on', async () => {
    const profilePath = project('');
    const run = await runCli(['--profile', profilePath, 'servers', 'list']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^warning: .*profiles\.yaml is empty/m);
  });

  function project(profile: string): string {
    const root = dir();
    writeFileSync(join(root, 'profiles.yaml'), profile);
    return join(root, 'profiles.yaml');
  }
});
