// Build step after tsc: bundles the CLI and our MCP servers into dist/bundle/, so each starts by reading a few
// files instead of hundreds of modules (measured here: `cortex servers` with three servers 1.8 s → 1.0 s).
// Packages with native addons or files of their own read at run time stay external.
import { rmSync } from 'node:fs';
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

// Emptied first: chunk names carry content hashes, so every earlier build's chunks would otherwise stay behind.
rmSync('dist/bundle', { recursive: true, force: true });

await build({
  entryPoints: {
    cli: 'dist/src/cli.js',
    math: 'dist/mcp-servers/math/main.js',
    documents: 'dist/mcp-servers/documents/main.js',
    websearch: 'dist/mcp-servers/websearch/main.js',
    history: 'dist/mcp-servers/history/main.js',
  },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: 'dist/bundle',
  external: EXTERNAL,
  // Bundled CommonJS dependencies call require(); give them one.
  banner: { js: "import { createRequire as __cortexRequire } from 'node:module'; const require = __cortexRequire(import.meta.url);" },
  plugins: [zodEnglishOnly],
  logLevel: 'warning',
});
