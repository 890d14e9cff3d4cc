// Reads the target of a `.url` file: a bare URL on the first line, or Windows' [InternetShortcut] URL= line.

/** Lines of a `.url` file searched for its URL. */
const MAX_URL_FILE_LINES = 200;

export type UrlFileTarget = { ok: true; url: string } | { ok: false; message: string };

/** Finds the URL in a `.url` file's text; only http(s) URLs are accepted. */
export function readUrlFile(text: string, name: string): UrlFileTarget {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/, MAX_URL_FILE_LINES).map((l) => l.trim());
  const ini = lines.map((l) => /^URL\s*=\s*(.+)$/i.exec(l)?.[1]).find((u) => u !== undefined);
  const candidate = ini ?? lines.find((l) => l !== '' && !l.startsWith('#') && !l.startsWith(';') && !l.startsWith('['));
  if (!candidate) return { ok: false, message: `${name} holds no URL.` };
  return checkWebUrl(candidate, name);
}

/** Accepts an absolute http(s) URL; anything else (file:, data:, relative, garbage) is refused with a reason. */
export function checkWebUrl(candidate: string, name: string): UrlFileTarget {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return { ok: false, message: `${name}: "${candidate.slice(0, 200)}" is not a valid URL.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, message: `${name}: only http and https URLs are fetched, not ${url.protocol}.` };
  }
  return { ok: true, url: url.href };
}
