// Today's date, time zone and locale as the prompts state them.
import { describe, expect, it } from 'vitest';
import { describeToday } from '../../src/agent/today.js';

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
});
