// Today's date, local time, time zone and locale in words for the prompts, from a clock a test can set.

/** Where the user is: an IANA time zone and a BCP 47 locale. */
export interface UserLocale {
  timeZone: string;
  locale: string;
}

/** The current time; tests pass a fixed one. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** Time zones whose formatters are kept; a process meets one or two, so this only bounds a strange caller. */
const MAX_ZONES_KEPT = 32;

/** The system's zone and locale as last read, with the TZ they were read under (Node follows a change of TZ at run time). */
let systemCache: { tz: string | undefined; where: UserLocale } | undefined;

/**
 * The process's time zone and locale (TZ, LANG / LC_ALL as Node's ICU reads them); UTC and en-US when unknown.
 * Read once and again whenever TZ changes: ICU's answer costs as much as the rest of the prompt's date line.
 */
export function systemLocale(): UserLocale {
  const tz = process.env.TZ;
  if (systemCache && systemCache.tz === tz) return systemCache.where;
  const options = Intl.DateTimeFormat().resolvedOptions();
  const where = { timeZone: options.timeZone || 'UTC', locale: options.locale || 'en-US' };
  systemCache = { tz, where };
  return where;
}

/** The four formatters the date line uses for one zone; building one costs far more than formatting with it. */
interface ZoneFormatters {
  date: Intl.DateTimeFormat;
  weekday: Intl.DateTimeFormat;
  time: Intl.DateTimeFormat;
  zoneName: Intl.DateTimeFormat;
}

const zoneFormatters = new Map<string, ZoneFormatters>();

const MS_PER_MINUTE = 60_000;
/** The last line made, by zone, locale and minute. */
let lastLine: { key: string; line: string } | undefined;

function formattersFor(timeZone: string): ZoneFormatters {
  const kept = zoneFormatters.get(timeZone);
  if (kept) return kept;
  const made: ZoneFormatters = {
    date: new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }),
    weekday: new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long' }),
    time: new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
    zoneName: new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }),
  };
  if (zoneFormatters.size >= MAX_ZONES_KEPT) zoneFormatters.clear();
  zoneFormatters.set(timeZone, made);
  return made;
}

/**
 * One line for the model: the weekday and ISO date where the user is, the local time, the zone with its UTC
 * offset, and the locale, e.g. "Today is Saturday, 2026-11-28; the local time is 12:23 (time zone Asia/Kolkata,
 * UTC+05:30); the user's locale is en-IN." Dates are worked out in the user's zone, not the server's UTC.
 */
export function describeToday(now: Date, where: UserLocale = systemLocale()): string {
  const { timeZone, locale } = where;
  // The line names nothing finer than the minute (zone offsets change on whole minutes too), so one minute's line
  // serves every question asked in it.
  const key = `${timeZone}|${locale}|${Math.floor(now.getTime() / MS_PER_MINUTE)}`;
  if (lastLine?.key === key) return lastLine.line;
  const formatters = formattersFor(timeZone);
  const date = formatters.date.format(now);
  const weekday = formatters.weekday.format(now);
  const time = formatters.time.format(now);
  const zoneName = formatters.zoneName.formatToParts(now).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const offset = zoneName === 'GMT' ? 'UTC+00:00' : zoneName.replace(/^GMT/, 'UTC');
  const line = `Today is ${weekday}, ${date}; the local time is ${time} (time zone ${timeZone}, ${offset}); the user's locale is ${locale}.`;
  lastLine = { key, line };
  return line;
}
