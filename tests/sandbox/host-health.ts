// Test helper: checks that the test (host) process came through a hostile run unharmed.
import { expect } from 'vitest';
import { hostLoadedIsolatedVm } from './math-server.js';

const baselinePrototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
const baselineGlobals = Object.getOwnPropertyNames(globalThis).sort();

/**
 * The host is unharmed: no isolate was ever loaded here, Object.prototype and the globals are as they
 * were, `process` is the real one, and the event loop still turns.
 */
export async function expectHostUnharmed(): Promise<void> {
  expect(hostLoadedIsolatedVm()).toBe(false);
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(baselinePrototypeKeys);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getOwnPropertyNames(globalThis).sort()).toEqual(baselineGlobals);
  expect(typeof process.memoryUsage).toBe('function');
  await new Promise<void>((resolve) => setImmediate(resolve));
}
