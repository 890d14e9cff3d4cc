#!/usr/bin/env node
// Launcher: the CLI itself is dist/bundle/cli.js (run `npm run build` first).
import module from 'node:module';

// Node 22.1+: keep V8's compiled code of the bundle on disk (in the OS temp folder), so later runs skip compiling it.
// Called before the bundle is imported, so it covers the bundle itself. Older Node versions simply lack it.
module.enableCompileCache?.();

import('../dist/bundle/cli.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/bundle/cli.js')) {
    console.error('cortex: the CLI is not built yet. Run `npm run build` (or `npm run setup`) in the project folder.');
    process.exit(2);
  }
  throw err;
});
