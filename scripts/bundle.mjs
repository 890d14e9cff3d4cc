// Build step after tsc: bundles the CLI and our MCP servers into dist/bundle/, so each starts by reading a few
// files instead of hundreds of modules (measured here: `cortex servers` with three servers 1.8 s → 1.0 s).
// Packages with native addons or files of their own read at run time stay external.
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { build } from 'esbuild';

const EXTERNAL = ['@babel/parser', 'isolated-vm', 'isolated-vm-node20', '@napi-rs/canvas', 'faiss-node', 'esbuild', 'jimp', 'pdfjs-dist', 'jsdom', 'mammoth', '@mozilla/readability', 'cheerio', 'turndown'];

/**
 * zod 4 re-exports its 64 locales as one namespace (`z.locales`), which no bundler can shake when the whole `z` is
 * imported, as the SDK does: about 0.36 MB of error messages in other languages that every start compiled. Nothing of ours
 * picks a locale, so the index offers English, the one zod itself installs (zod issues #6050, #5665).
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({ contents: 'export { default as en } from "./en.js";', loader: 'js' }));
  },
};

/** The SDK's client module (its `Client` builds an ajv validator unless given one, and ours always gives one). */
const SDK_CLIENT = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]client[\\/]index\.js$/;
/** The SDK's server modules (their `Server` builds an ajv validator, used only to check elicitation answers). */
const SDK_SERVER = /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]/;

/**
 * The SDK's ajv validator, as imported by the modules `importers` matches, becomes the same validator loaded on first
 * use (mcp-servers/shared/lazy-ajv-validator.ts), so ajv's 0.3 MB and its formats are not compiled at every start:
 * - in our servers, nothing needs it until an elicitation answer is checked (none of ours elicits);
 * - in the CLI, our client passes its own (src/mcp/output-validators.ts, which imports ajv while a server starts), so
 *   a stdio server's spawn does not wait for it.
 */
function ajvOnFirstUse(importers) {
  return {
    name: 'ajv-on-first-use',
    setup(b) {
      b.onResolve({ filter: /^\.\.\/validation\/ajv-provider\.js$/ }, ({ importer }) =>
        importers.test(importer) ? { path: resolve('dist/mcp-servers/shared/lazy-ajv-validator.js') } : undefined,
      );
    },
  };
}

const ZOD3_REFUSED = "throw new Error('Cortex-R servers are built for zod 4 schemas; a zod 3 schema reached the SDK')";

/** For our servers: zod 3 and zod-to-json-schema, the SDK's path for zod 3 schemas, are left out (every schema of ours is zod 4). */
const serversWithoutZod3 = {
  name: 'servers-without-zod3',
  setup(b) {
    b.onResolve({ filter: /^(zod\/v3|zod-to-json-schema)$/ }, ({ path, importer }) =>
      SDK_SERVER.test(importer) ? { path, namespace: 'zod3-refused' } : undefined,
    );
    b.onLoad({ filter: /^zod\/v3$/, namespace: 'zod3-refused' }, () => ({ contents: `export function object() { ${ZOD3_REFUSED}; }`, loader: 'js' }));
    b.onLoad({ filter: /^zod-to-json-schema$/, namespace: 'zod3-refused' }, () => ({ contents: `export function zodToJsonSchema() { ${ZOD3_REFUSED}; }`, loader: 'js' }));
  },
};

const COMMON = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: 'dist/bundle',
  external: EXTERNAL,
  // Bundled CommonJS dependencies call require(); give them one.
  banner: { js: "import { createRequire as __cortexRequire } from 'node:module'; const require = __cortexRequire(import.meta.url);" },
  logLevel: 'warning',
};

// Emptied first: chunk names carry content hashes, so every earlier build's chunks would otherwise stay behind.
rmSync('dist/bundle', { recursive: true, force: true });

await Promise.all([
  build({ ...COMMON, entryPoints: { cli: 'dist/src/cli.js' }, plugins: [zodEnglishOnly, ajvOnFirstUse(SDK_CLIENT)] }),
  // A build of their own (chunks named apart), so what is left out of the servers stays in the CLI.
  build({
    ...COMMON,
    entryPoints: {
      math: 'dist/mcp-servers/math/main.js',
      documents: 'dist/mcp-servers/documents/main.js',
      websearch: 'dist/mcp-servers/websearch/main.js',
      history: 'dist/mcp-servers/history/main.js',
    },
    chunkNames: 'server-[name]-[hash]',
    plugins: [zodEnglishOnly, ajvOnFirstUse(SDK_SERVER), serversWithoutZod3],
  }),
]);
