// Today's date, local time, time zone and locale in words for the prompts, from a clock a test can set.

/** Where the user is: an IANA time zone and a BCP 47 locale. */
export interface UserLocale {
  timeZone: string;
  locale: string;
}

/** The current time; tests pass a fixed one. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** The process's time zone and locale (TZ, LANG / LC_ALL as Node's ICU reads them); UTC and en-US when unknown. */
export function systemLocale(): UserLocale {
  const options = Intl.DateTimeFormat().resolvedOptions();
  return { timeZone: options.timeZone || 'UTC', locale: options.locale || 'en-US' };
}

/**
 * One line for the model: the weekday and ISO date where the user is, the local time, the zone with its UTC
 * offset, and the locale, e.g. "Today is Saturday, 2026-11-28; the local time is 12:23 (time zone Asia/Kolkata,
 * UTC+05:30); the user's locale is en-IN." Dates are worked out in the user's zone, not the server's UTC.
 */
export function describeToday(now: Date, where: UserLocale = systemLocale()): string {
  const { timeZone, locale } = where;
  const part = (options: Intl.DateTimeFormatOptions, lang = 'en-US') => new Intl.DateTimeFormat(lang, { timeZone, ...options }).format(now);
  const date = part({ year: 'numeric', month: '2-digit', day: '2-digit' }, 'en-CA');
  const weekday = part({ weekday: 'long' });
  const time = part({ hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }, 'en-GB');
  const zoneName = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(now).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const offset = zoneName === 'GMT' ? 'UTC+00:00' : zoneName.replace(/^GMT/, 'UTC');
  return `Today is ${weekday}, ${date}; the local time is ${time} (time zone ${timeZone}, ${offset}); the user's locale is ${locale}.`;
}
