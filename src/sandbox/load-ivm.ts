// Loads isolated-vm for the Node.js that is running: one package.json installs the line built for each Node.
import { createRequire } from 'node:module';
import { writeSync } from 'node:fs';
import { CortexError, errorMessage } from '../errors.js';
import { UNAVAILABLE_MARKER } from './protocol.js';

/**
 * The packages tried, in order. package.json lists both as optional dependencies (npm aliases):
 * `isolated-vm` is the 6.x line (Node 22 and later, prebuilt binaries in the package) and
 * `isolated-vm-node20` is 5.0.4 (Node 20, compiled at install). npm skips the one that cannot be
 * installed on the running Node (engine check, or a failed build of an optional package).
 */
const ISOLATED_VM_PACKAGES = ['isolated-vm', 'isolated-vm-node20'] as const;

/** Most characters kept of why one package did not load. */
const MAX_FAILURE_CHARS = 400;

/** The part of isolated-vm's API the sandbox uses (the same in 5.x and 6.x). */
export interface IsolatedVm {
  Isolate: new (options: { memoryLimit?: number; onCatastrophicError?: (message: string) => void }) => Isolate;
  Reference: new <T>(value: T) => Reference;
  ExternalCopy: new <T>(value: T) => { copyInto(): unknown };
}

export interface Isolate {
  readonly isDisposed: boolean;
  createContext(): Promise<Context>;
  dispose(): void;
}

export interface Context {
  evalClosure(
    code: string,
    args: unknown[],
    options: { timeout?: number; filename?: string; result?: { promise?: boolean; copy?: boolean } },
  ): Promise<unknown>;
}

export interface Reference {
  release(): void;
}

/** Raised when no isolated-vm package loads: the message names each one tried and why it failed. */
export class IsolatedVmMissingError extends CortexError {
  constructor(readonly failures: readonly string[]) {
    super(
      'isolated_vm_missing',
      `isolated-vm could not be loaded on Node ${process.versions.node} (${failures.join('; ')}). ` +
        'Reinstall with the Node you run Cortex-R with: npm run setup (docs/node-versions.md).',
    );
  }
}

/** Returns the first isolated-vm package that loads. Throws IsolatedVmMissingError when none does. */
export function loadIsolatedVm(require: NodeJS.Require = createRequire(import.meta.url)): IsolatedVm {
  const failures: string[] = [];
  for (const name of ISOLATED_VM_PACKAGES) {
    try {
      return require(name) as IsolatedVm;
    } catch (err) {
      // Node's own message runs over lines ("… was compiled against a different Node.js version using …"): keep it whole.
      const why = (err as { code?: unknown }).code === 'MODULE_NOT_FOUND' ? 'not installed' : errorMessage(err).replace(/\s+/g, ' ').slice(0, MAX_FAILURE_CHARS);
      failures.push(`${name}: ${why}`);
    }
  }
  throw new IsolatedVmMissingError(failures);
}

/**
 * In the worker process: the isolated-vm that loads; else the reason, as one UNAVAILABLE_MARKER line on stderr that
 * the host reads (worker-process.ts), and exit. A stack trace would end in "Node.js v…", which says nothing.
 */
export function loadOrReport(load: () => IsolatedVm = loadIsolatedVm): IsolatedVm {
  try {
    return load();
  } catch (err) {
    writeSync(2, `${UNAVAILABLE_MARKER}${errorMessage(err).replace(/\s+/g, ' ')}\n`);
    process.exit(1);
  }
}
