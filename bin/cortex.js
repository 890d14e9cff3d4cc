#!/usr/bin/env node
// Launcher: the CLI itself is dist/bundle/cli.js (run `npm run build` first).
import('../dist/bundle/cli.js').catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/bundle/cli.js')) {
    console.error('cortex: the CLI is not built yet. Run `npm run build` (or `npm run setup`) in the project folder.');
    process.exit(2);
  }
  throw err;
});
