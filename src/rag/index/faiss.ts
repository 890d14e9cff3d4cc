// faiss-node, loaded on first use: it is CommonJS with a native addon (about 8 ms to load), which a documents server
// that has only listed its tools, or a CLI that never searches, does not need.
import { createRequire } from 'node:module';

export type FaissModule = typeof import('faiss-node');

let loaded: FaissModule | undefined;

/** faiss-node, required (not imported) so ESM interop cannot get in the way. */
export function faiss(): FaissModule {
  return (loaded ??= createRequire(import.meta.url)('faiss-node') as FaissModule);
}
