// Loads isolated-vm for the Node.js that is running: one package.json installs the line built for each Node.
import { createRequire } from 'node:module';
import { CortexError } from '../errors.js';

/**
 * The packages tried, in order. package.json lists both as optional dependencies (npm aliases):
 * `isolated-vm` is the 6.x line (Node 22 and later, prebuilt binaries in the package) and
 * `isolated-vm-node20` is 5.0.4 (Node 20, compiled at install). npm skips the one that cannot be
 * installed on the running Node (engine check, or a failed build of an optional package).
 */
const ISOLATED_VM_PACKAGES = ['isolated-vm', 'isolated-vm-node20'] as const;

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
      failures.push(`${name}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  }
  throw new IsolatedVmMissingError(failures);
}
