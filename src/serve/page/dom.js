// Small DOM helpers: text is only ever set with textContent.

/** A new element with an optional class and text. */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** "1 step", "3 steps". */
export function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

/** Milliseconds as "850 ms", "4.2 s" or "1 min 5 s". */
export function duration(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const UNITS = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** An ISO time as "5 minutes ago", "yesterday"; "just now" under a minute. */
export function relativeTime(iso, now = Date.now()) {
  const ms = Date.parse(iso) - now;
  for (const [unit, size] of UNITS) if (Math.abs(ms) >= size) return RELATIVE.format(Math.round(ms / size), unit);
  return 'just now';
}
