import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { DEFAULT_OLLAMA_HOST, resolveOllamaHost } from '../../src/llm/ollama-host.js';

describe('resolveOllamaHost', () => {
  it('defaults to 127.0.0.1:11434 when neither config nor OLLAMA_HOST says otherwise', () => {
    expect(resolveOllamaHost(undefined, {})).toBe('http://127.0.0.1:11434');
    expect(resolveOllamaHost(undefined, { OLLAMA_HOST: '  ' })).toBe(DEFAULT_OLLAMA_HOST);
  });

  it('prefers base_url from models.yaml over OLLAMA_HOST', () => {
    expect(resolveOllamaHost('http://gpu-box:8080', { OLLAMA_HOST: '10.0.0.1:1234' })).toBe('http://gpu-box:8080');
  });

  it.each([
    ['127.0.0.1:11434', 'http://127.0.0.1:11434'],
    ['example.com', 'http://example.com:11434'],
    ['example.com:9000', 'http://example.com:9000'],
    ['example.com:80', 'http://example.com:80'],
    [':8080', 'http://127.0.0.1:8080'],
    ['0.0.0.0', 'http://127.0.0.1:11434'],
    ['0.0.0.0:9999', 'http://127.0.0.1:9999'],
    ['http://example.com', 'http://example.com:80'],
    ['https://ollama.example.com', 'https://ollama.example.com:443'],
    ['https://example.com/ollama/', 'https://example.com:443/ollama'],
    ['[::1]:11435', 'http://[::1]:11435'],
    ['[::]', 'http://[::1]:11434'],
    ['::1', 'http://[::1]:11434'],
  ])('reads OLLAMA_HOST=%s as the Ollama CLI does: %s', (value, expected) => {
    expect(resolveOllamaHost(undefined, { OLLAMA_HOST: value })).toBe(expected);
  });

  it('rejects a host it cannot read, naming OLLAMA_HOST', () => {
    expect(() => resolveOllamaHost(undefined, { OLLAMA_HOST: 'ftp://x' })).toThrow(ConfigError);
    expect(() => resolveOllamaHost(undefined, { OLLAMA_HOST: 'host:port' })).toThrow(/OLLAMA_HOST/);
  });
});
