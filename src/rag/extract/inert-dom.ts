// A jsdom document that never runs scripts and never loads anything, for reading untrusted HTML.

// Loaded through a non-literal specifier: @types/jsdom pulls the DOM lib into the whole program, which would
// change global types (setTimeout, fetch) for every other module. The shapes used here are declared below.
const JSDOM_MODULE: string = 'jsdom';

/** The parts of a jsdom window the extractor uses. */
export interface InertWindow {
  document: { title: string; body: object | null; getElementById(id: string): { textContent: string | null } | null };
  addEventListener(type: 'load', listener: () => void): void;
  close(): void;
}

interface JsdomModule {
  JSDOM: new (html: string, options: { contentType: string; virtualConsole: object }) => { window: InertWindow };
  VirtualConsole: new () => object;
}

/**
 * Parses `html` with jsdom's defaults for the two settings that matter: `runScripts` unset (no inline,
 * external or event-handler script runs) and `resources` unset (no stylesheet, image, frame or script is
 * fetched). Its console forwards nowhere, so CSS and parse complaints never reach our stdout.
 * Close the window when done.
 */
export async function createInertDom(html: string): Promise<{ window: InertWindow }> {
  const { JSDOM, VirtualConsole } = (await import(JSDOM_MODULE)) as JsdomModule;
  return new JSDOM(html, { contentType: 'text/html', virtualConsole: new VirtualConsole() });
}
