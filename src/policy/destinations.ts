// Where a call sends or writes (web hosts, mail addresses, file paths), and whether the user named that place.
import { basename } from 'node:path';

/** Strings looked at in one call's arguments; a plan cannot make the host walk a huge argument. */
const MAX_STRINGS_SCANNED = 1_000;
/** Nesting followed into the arguments. */
const MAX_DEPTH = 8;

const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>`]+/gi;
const MAIL_PATTERN = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
/** Bare host names in a question ("post it to example.org"). */
const HOST_PATTERN = /\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}(?::\d+)?\b/gi;
/** Argument names that hold a file path. */
const PATH_KEYS = /^(path|file|filepath|filename|file_?name|target|destination|dest|output|out)$|_(path|file|dir|folder)$/i;

/** One place a call reaches: `host` (with port when given), `mail` address, or a file `path`. */
export type Destination = { kind: 'host' | 'mail' | 'path'; value: string };

function hostOf(url: string): string | null {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return null;
  }
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

/** Every host (from URLs), mail address and (for tools that write) file path in a call's arguments. */
export function destinationsOf(args: Record<string, unknown>, { paths }: { paths: boolean }): Destination[] {
  const found = new Map<string, Destination>();
  const add = (d: Destination) => found.set(`${d.kind}:${d.value}`, d);
  strings(args, (key, text) => {
    for (const url of text.match(URL_PATTERN) ?? []) {
      const host = hostOf(url);
      if (host) add({ kind: 'host', value: host });
    }
    for (const mail of text.replace(URL_PATTERN, ' ').match(MAIL_PATTERN) ?? []) add({ kind: 'mail', value: mail.toLowerCase() });
    if (paths && PATH_KEYS.test(key) && text.trim() && !/^https?:/i.test(text)) add({ kind: 'path', value: text.trim() });
  });
  return [...found.values()];
}

/** The places the user named: in the question (URLs, host names, mail addresses, quoted or plain file names) and the allow-list. */
export interface GivenPlaces {
  hosts: Set<string>;
  mails: Set<string>;
  /** The question's text, lower case, for file names. */
  text: string;
  allowList: readonly string[];
}

export function givenPlaces(question: string, allowList: readonly string[]): GivenPlaces {
  const hosts = new Set<string>();
  for (const url of question.match(URL_PATTERN) ?? []) {
    const host = hostOf(url);
    if (host) hosts.add(host);
  }
  const withoutUrls = question.replace(URL_PATTERN, ' ');
  const mails = new Set((withoutUrls.match(MAIL_PATTERN) ?? []).map((m) => m.toLowerCase()));
  for (const host of withoutUrls.replace(MAIL_PATTERN, ' ').match(HOST_PATTERN) ?? []) hosts.add(host.toLowerCase());
  return { hosts, mails, text: question.toLowerCase(), allowList };
}

function hostAllowed(host: string, entry: string): boolean {
  const e = entry.toLowerCase();
  const bare = host.replace(/:\d+$/, '');
  if (e.startsWith('*.')) return bare.endsWith(e.slice(1));
  return e === host || (!e.includes(':') && e === bare);
}

/** True when the user named `d`: a host given with a port matches that port only; a file by its path or its name. */
export function isGiven(d: Destination, given: GivenPlaces): boolean {
  switch (d.kind) {
    case 'host':
      return [...given.hosts, ...given.allowList].some((entry) => hostAllowed(d.value, entry));
    case 'mail':
      return given.mails.has(d.value) || given.allowList.some((e) => e.toLowerCase() === d.value || (e.startsWith('@') && d.value.endsWith(e.toLowerCase())));
    case 'path': {
      const name = basename(d.value).toLowerCase();
      return (name !== '' && given.text.includes(name)) || given.allowList.includes(d.value);
    }
  }
}

/** How a place is shown to the user and the model. */
export function describeDestination(d: Destination): string {
  return d.kind === 'path' ? `the file ${d.value}` : d.value;
}
