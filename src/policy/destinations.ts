// Where a call sends or writes (web hosts, mail addresses, file paths), read the way the fetch or the mailer reads it.
import { basename } from 'node:path';
import { domainToASCII } from 'node:url';

/** Strings looked at in one call's arguments; a plan cannot make the host walk a huge argument. */
const MAX_STRINGS_SCANNED = 1_000;
/** Nesting followed into the arguments. */
const MAX_DEPTH = 8;

/** A scheme then anything up to a space or quote: every candidate URL, slashes or not (`http:evil.example`, `http:\\evil`). */
const URL_CANDIDATE = /\b[a-z][a-z0-9+.-]{1,20}:[^\s"'<>`]+/gi;
/** A link inside a result's text (plain or JSON-escaped). */
const LINK_IN_TEXT = /\b[a-z][a-z0-9+.-]{1,20}:[^\s"'<>`\\]+/gi;
/** Schemes whose URLs go to a host over the network in every fetch; others (custom schemes) are judged by their text. */
const NETWORK_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:']);
/** Schemes that carry data but go nowhere. */
const INERT_SCHEMES = new Set(['data:', 'about:', 'blob:', 'javascript:']);
const MAIL_PATTERN = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
/** Bare host names in a question ("post it to example.org"); see FILE_EXTENSIONS for the names that are files. */
const HOST_PATTERN = /(?<![\w/\\.@-])(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+[\p{L}]{2,}(?::\d+)?(?![\w/\\@-])/gu;
/**
 * Endings that make a bare name a file, not a host ("README.md", "deploy.sh"), though some are also top-level domains:
 * a host with such an ending counts as named only when the question gives it as a URL.
 */
const FILE_EXTENSIONS = new Set(
  'md sh py js mjs cjs ts tsx jsx txt json yaml yml toml ini cfg conf csv tsv pdf doc docx xls xlsx ppt pptx png jpg jpeg gif svg webp html htm xml log zip gz tgz tar rs go rb pl pm c h cc cpp hpp java kt swift php sql db sqlite lock env bak tmp out ps1 bat exe dll so bin dat mov mp3 mp4 wav ipynb'.split(' '),
);
/** Argument names that hold a file path. */
const PATH_KEYS = /^(path|file|filepath|filename|file_?name|target|destination|dest|output|out|source|src)$|_(path|file|dir|folder)$/i;
/** Argument names whose value is a URI: any scheme there is a place. */
const URI_KEYS = /^(url|uri|href|link|endpoint|webhook)s?$/i;
/** Argument names that hold where a call goes; a value there that names no place the host can read is a place of its own. */
const PLACE_KEYS = /^(to|cc|bcc|recipients?|email|mail|address|url|uri|href|link|host|hostname|endpoint|webhook|server|domain|channel)s?$/i;

/** One place a call reaches: `host` (with port when given), `mail` address, a file `path`, or `other` (a place the host cannot read). */
export interface Destination {
  kind: 'host' | 'mail' | 'path' | 'other';
  value: string;
  /** For a host reached by a URL: the URL as the fetch will request it. */
  url?: string;
}

/** Tabs and newlines vanish and C0 controls and spaces are trimmed before a URL is parsed (WHATWG URL), so here too. */
function asFetched(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
}

/** A host as compared: lower case, punycode, no trailing dot, port kept. */
export function normalHost(host: string): string {
  const [, name = host, port] = /^(.*?)(:\d+)?$/.exec(host.toLowerCase()) ?? [];
  const bare = name.replace(/\.$/, '');
  const ascii = bare.startsWith('[') ? bare : domainToASCII(bare) || bare;
  return `${ascii}${port ?? ''}`;
}

/** A mail address as a mailer reads it: NFKC (full-width @), lower case, the domain in punycode. */
export function normalMail(address: string): string {
  const at = address.lastIndexOf('@');
  const local = address.slice(0, at).toLowerCase();
  return `${local}@${normalHost(address.slice(at + 1))}`;
}

/**
 * The place one URL reaches, or null when it goes nowhere (data:, about:) or is not a URL. A scheme of no known kind
 * is a place of its own only with an authority (`s3://bucket`) or when `anyScheme` (the value is a URI argument), so
 * "Re:meeting" or "10:30" in a text is no place.
 */
export function urlDestination(candidate: string, anyScheme = false): Destination | null {
  let url: URL;
  try {
    url = new URL(asFetched(candidate));
  } catch {
    return null;
  }
  if (INERT_SCHEMES.has(url.protocol)) return null;
  if (url.protocol === 'mailto:') {
    const mail = decodeURIComponent(url.pathname).match(MAIL_PATTERN)?.[0];
    return mail ? { kind: 'mail', value: normalMail(mail) } : null;
  }
  if (url.protocol === 'file:') return { kind: 'path', value: decodeURIComponent(url.pathname) };
  if (NETWORK_SCHEMES.has(url.protocol) && url.host) return { kind: 'host', value: normalHost(url.host), url: url.href };
  // Any other scheme: where it goes is the server's business, so it is a place of its own, named only word for word.
  if (!anyScheme && !/^[a-z][a-z0-9+.-]*:\/\//i.test(asFetched(candidate))) return null;
  return { kind: 'other', value: url.href, url: url.href };
}

function strings(value: unknown, visit: (key: string, text: string) => void, key = '', depth = 0, budget = { left: MAX_STRINGS_SCANNED }): void {
  if (budget.left <= 0 || depth > MAX_DEPTH) return;
  if (typeof value === 'string') {
    budget.left--;
    visit(key, value);
  } else if (Array.isArray(value)) {
    for (const item of value) strings(item, visit, key, depth + 1, budget);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) strings(v, visit, k, depth + 1, budget);
  }
}

/** Every URL place and mail address in one text, read as a fetch and a mailer would read them; `uri`: the text is a URI argument. */
function placesInText(text: string, uri = false): Destination[] {
  const found: Destination[] = [];
  const plain = text.normalize('NFKC');
  // The whole value first: a fetch is given the whole argument, tabs, newlines and backslashes included.
  const whole = /\s/.test(asFetched(plain)) ? null : urlDestination(plain, uri);
  if (whole) found.push(whole);
  for (const candidate of asFetched(plain).match(URL_CANDIDATE) ?? []) {
    const d = urlDestination(candidate);
    if (d) found.push(d);
  }
  for (const mail of plain.match(MAIL_PATTERN) ?? []) {
    // user@host inside a URL is the URL's userinfo, already judged by its host.
    if (!found.some((d) => d.url?.includes(`${mail.split('@')[0]}@`))) found.push({ kind: 'mail', value: normalMail(mail) });
  }
  return found;
}

/**
 * Every place in a call's arguments: hosts of URLs (any scheme, as the fetch parses them), mail addresses, and for
 * tools that write, file paths. A value under a key that says where the call goes (`to`, `url`, `host`…) which
 * names no place the host can read is a place of its own, never named by the user: the host cannot tell where it goes.
 */
export function destinationsOf(args: Record<string, unknown>, { paths }: { paths: boolean }): Destination[] {
  const found = new Map<string, Destination>();
  const add = (d: Destination) => found.set(`${d.kind}:${d.value}`, d);
  strings(args, (key, text) => {
    const places = placesInText(text, URI_KEYS.test(key));
    places.forEach(add);
    if (paths && PATH_KEYS.test(key) && text.trim() && !places.some((p) => p.kind === 'host' || p.kind === 'other')) {
      add({ kind: 'path', value: text.trim() });
    } else if (PLACE_KEYS.test(key) && text.trim() && places.length === 0) {
      add({ kind: 'other', value: text.trim().slice(0, 200) });
    }
  });
  return [...found.values()];
}

/** The places the user named: in the typed question (URLs, host names, mail addresses, file names) and the allow-list. */
export interface GivenPlaces {
  hosts: Set<string>;
  mails: Set<string>;
  /** URLs of other schemes given word for word. */
  others: Set<string>;
  /** The question's text, lower case, for file names. */
  text: string;
  allowList: readonly string[];
}

export function givenPlaces(question: string, allowList: readonly string[]): GivenPlaces {
  const given: GivenPlaces = { hosts: new Set(), mails: new Set(), others: new Set(), text: '', allowList };
  addGivenText(given, question);
  return given;
}

/** Adds the places more of the person's own words name (an answer they typed to a plan's question). */
export function addGivenText(given: GivenPlaces, text: string): void {
  for (const d of placesInText(text)) {
    if (d.kind === 'host') given.hosts.add(d.value);
    else if (d.kind === 'mail') given.mails.add(d.value);
    else if (d.kind === 'other') given.others.add(d.value);
  }
  const plain = text.normalize('NFKC').replace(URL_CANDIDATE, ' ').replace(MAIL_PATTERN, ' ');
  for (const name of plain.match(HOST_PATTERN) ?? []) {
    const ending = name.replace(/:\d+$/, '').split('.').pop()!.toLowerCase();
    if (!FILE_EXTENSIONS.has(ending)) given.hosts.add(normalHost(name));
  }
  given.text = given.text ? `${given.text}\n${text.toLowerCase()}` : text.toLowerCase();
}

function hostAllowed(host: string, entry: string): boolean {
  const e = normalHost(entry.startsWith('*.') ? entry.slice(2) : entry);
  const bare = host.replace(/:\d+$/, '');
  if (entry.startsWith('*.')) return bare.endsWith(`.${e}`);
  return e === host || (!e.includes(':') && e === bare);
}

/** True when the user named `d`: a host given with a port matches that port only; a file by its path or its name. */
export function isGiven(d: Destination, given: GivenPlaces): boolean {
  switch (d.kind) {
    case 'host':
      return [...given.hosts, ...given.allowList].some((entry) => hostAllowed(d.value, entry));
    case 'mail':
      return given.mails.has(d.value) || given.allowList.some((e) => (e.startsWith('@') ? d.value.endsWith(normalMail(`x${e}`).slice(1)) : e.includes('@') && normalMail(e) === d.value));
    case 'path': {
      const name = basename(d.value).toLowerCase();
      return (name !== '' && given.text.includes(name)) || given.allowList.includes(d.value);
    }
    case 'other':
      return given.others.has(d.value) || given.allowList.includes(d.value);
  }
}

/** Every web address in a text, as its fetch would request it: the links a result shows (flow-guard's "seen links"). */
export function linksIn(text: string, max: number): string[] {
  const links: string[] = [];
  // A result is often JSON: a link ends at a backslash there (`\n`, `\"`), as it does at a space in plain text.
  for (const candidate of text.match(LINK_IN_TEXT) ?? []) {
    const d = urlDestination(candidate.replace(/[.,;:!?)\]}]+$/, ''));
    if (d?.url) links.push(d.url);
    if (links.length >= max) break;
  }
  return links;
}

/** How a place is shown to the user and the model. */
export function describeDestination(d: Destination): string {
  if (d.kind === 'path') return `the file ${d.value}`;
  if (d.kind === 'other') return `"${d.value}"`;
  return d.value;
}
