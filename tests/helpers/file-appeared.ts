// Waits for a file a test server writes (watching its folder, no polling), bounded so a missing file fails the test.
import { existsSync, watch } from 'node:fs';
import { dirname } from 'node:path';

/** Longest wait; it only bounds a failing test. */
const APPEAR_WAIT_MS = 60_000;

/** Resolves once `file` exists, or rejects after APPEAR_WAIT_MS. */
export function fileAppeared(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dirname(file));
    const done = (err?: Error) => {
      clearTimeout(timer);
      watcher.close();
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => done(new Error(`${file} never appeared`)), APPEAR_WAIT_MS);
    watcher.on('change', () => existsSync(file) && done());
    if (existsSync(file)) done();
  });
}
