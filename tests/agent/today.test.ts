// Today's date, time zone and locale as the prompts state them.
import { describe, expect, it } from 'vitest';
import { describeToday, systemLocale } from '../../src/agent/today.js';

describe('describeToday', () => {
  it('gives the date, weekday and time where the user is, not in UTC, with the zone, offset and locale', () => {
    // 20:00 UTC on Saturday is already Sunday 01:30 in India.
    const now = new Date('2026-11-28T20:00:00Z');
    expect(describeToday(now, { timeZone: 'Asia/Kolkata', locale: 'en-IN' })).toBe(
      "Today is Sunday, 2026-11-29; the local time is 01:30 (time zone Asia/Kolkata, UTC+05:30); the user's locale is en-IN.",
    );
    expect(describeToday(now, { timeZone: 'America/New_York', locale: 'en-US' })).toBe(
      "Today is Saturday, 2026-11-28; the local time is 15:00 (time zone America/New_York, UTC-05:00); the user's locale is en-US.",
    );
    expect(describeToday(now, { timeZone: 'UTC', locale: 'de-DE' })).toContain('2026-11-28; the local time is 20:00 (time zone UTC, UTC+00:00)');
  });

  it('states each moment it is given in the same zone, not the first one asked about', () => {
    const where = { timeZone: 'Europe/Berlin', locale: 'de-DE' };
    expect(describeToday(new Date('2026-07-01T10:00:00Z'), where)).toContain('Wednesday, 2026-07-01; the local time is 12:00 (time zone Europe/Berlin, UTC+02:00)');
    expect(describeToday(new Date('2026-12-24T22:30:00Z'), where)).toContain('Thursday, 2026-12-24; the local time is 23:30 (time zone Europe/Berlin, UTC+01:00)');
    expect(describeToday(new Date('2026-12-24T22:31:00Z'), where)).toContain('the local time is 23:31');
    // Summer time ends at 01:00 UTC on 2026-10-25: the minute after it states the new offset and hour.
    expect(describeToday(new Date('2026-10-25T00:59:00Z'), where)).toContain('the local time is 02:59 (time zone Europe/Berlin, UTC+02:00)');
    expect(describeToday(new Date('2026-10-25T01:00:00Z'), where)).toContain('the local time is 02:00 (time zone Europe/Berlin, UTC+01:00)');
    expect(describeToday(new Date('2026-10-25T01:00:00Z'), { timeZone: 'Europe/Berlin', locale: 'fr-FR' })).toContain("the user's locale is fr-FR.");
  });
});

describe('systemLocale', () => {
  it('follows a change of TZ while the process runs', () => {
    const before = process.env.TZ;
    try {
      process.env.TZ = 'Europe/Paris';
      expect(systemLocale().timeZone).toBe('Europe/Paris');
      process.env.TZ = 'America/New_York';
      expect(systemLocale().timeZone).toBe('America/New_York');
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });
});
