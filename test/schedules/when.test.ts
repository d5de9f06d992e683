import { describe, expect, it } from 'vitest';
import { ScheduleError } from '../../src/schedules/errors.js';
import { IANA_ZONE_NAMES } from '../../src/schedules/iana-zone-names.js';
import { canonicalTimeZone, countSlotsBetween, nextSlotAfter, validateWhen } from '../../src/schedules/when.js';

const now = Date.parse('2026-03-27T12:00:00Z');
const rules = { now, minIntervalS: 60 };

function codeOf(raw: unknown, r = rules): string {
  try {
    validateWhen(raw, r);
  } catch (err) {
    expect(err).toBeInstanceOf(ScheduleError);
    return (err as ScheduleError).code;
  }
  throw new Error('expected validateWhen to throw');
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('validateWhen', () => {
  it('accepts an at time with offset and fires exactly then', () => {
    const v = validateWhen({ at: '2026-03-27T15:30:00+01:00' }, rules);
    expect(iso(v.firstRunAt)).toBe('2026-03-27T14:30:00.000Z');
    expect(v.when).toEqual({ at: '2026-03-27T15:30:00+01:00' });
  });

  it('computes after from now in the given unit', () => {
    expect(iso(validateWhen({ after: { value: 90, unit: 'minute' } }, rules).firstRunAt)).toBe('2026-03-27T13:30:00.000Z');
    expect(iso(validateWhen({ after: { value: 1, unit: 'week' } }, rules).firstRunAt)).toBe('2026-04-03T12:00:00.000Z');
  });

  it('gives the first cron slot in the zone', () => {
    const v = validateWhen({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, rules);
    expect(iso(v.firstRunAt)).toBe('2026-03-28T08:00:00.000Z'); // 09:00 CET
  });

  it('refuses none or several forms with invalid_when', () => {
    expect(codeOf({})).toBe('invalid_when');
    expect(codeOf(undefined)).toBe('invalid_when');
    expect(codeOf('tomorrow')).toBe('invalid_when');
    expect(codeOf({ at: '2026-03-28T09:00:00Z', cron: '0 9 * * *', timezone: 'UTC' })).toBe('invalid_when');
    expect(codeOf({ after: { value: 1, unit: 'hour' }, at: '2026-03-28T09:00:00Z' })).toBe('invalid_when');
    expect(codeOf({ at: '2026-03-28T09:00:00Z', timezone: 'UTC' })).toBe('invalid_when');
  });

  it('refuses an at without offset or an impossible date with invalid_at', () => {
    expect(codeOf({ at: '2026-03-28T09:00:00' })).toBe('invalid_at');
    expect(codeOf({ at: 'next tuesday' })).toBe('invalid_at');
    expect(codeOf({ at: '2026-02-30T09:00:00Z' })).toBe('invalid_at');
  });

  it('refuses an at that is not in the future with at_in_past', () => {
    expect(codeOf({ at: '2026-03-27T11:59:59Z' })).toBe('at_in_past');
    expect(codeOf({ at: '2026-03-27T12:00:00Z' })).toBe('at_in_past');
  });

  it('says what to send instead of an at in the past or without an offset', () => {
    const messageOf = (when: unknown) => {
      try {
        validateWhen(when, rules);
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    };
    expect(messageOf({ at: '2026-03-27T11:59:59Z' })).toMatch(/is not in the future \(now is .*\): send a later time, or use when\.after for a delay from now$/);
    expect(messageOf({ at: 'next tuesday' })).toMatch(/: send a date and time with its offset, e\.g\. /);
  });

  it('refuses a bad after with invalid_after', () => {
    expect(codeOf({ after: { value: 0, unit: 'minute' } })).toBe('invalid_after');
    expect(codeOf({ after: { value: 1.5, unit: 'minute' } })).toBe('invalid_after');
    expect(codeOf({ after: { value: 1, unit: 'month' } })).toBe('invalid_after');
  });

  it('refuses a bad cron expression with invalid_cron and names the field at fault', () => {
    expect(codeOf({ cron: 'every day', timezone: 'UTC' })).toBe('invalid_cron');
    expect(codeOf({ cron: '61 * * * *', timezone: 'UTC' })).toBe('invalid_cron');
    expect(codeOf({ cron: '0 0 30 2 *', timezone: 'UTC' })).toBe('invalid_cron'); // never fires
    expect(() => validateWhen({ cron: '61 * * * *', timezone: 'UTC' }, rules)).toThrow(/the minute field "61" is out of range: it takes 0–59/);
  });

  it('refuses an unknown time zone with unknown_timezone, a missing one with timezone_required', () => {
    expect(codeOf({ cron: '0 9 * * *', timezone: 'Mars/Olympus' })).toBe('unknown_timezone');
    expect(codeOf({ cron: '0 9 * * *', timezone: 9 })).toBe('unknown_timezone');
    expect(codeOf({ cron: '0 9 * * *' })).toBe('timezone_required');
    expect(() => validateWhen({ cron: '0 9 * * *' }, rules)).toThrow('when.timezone is required with when.cron (there is no default zone): an IANA name such as "Europe/Berlin" or "UTC"');
  });

  it('matches IANA names case-insensitively and returns them in canonical spelling', () => {
    const zoneOf = (timezone: string) => (validateWhen({ cron: '0 9 * * *', timezone }, rules).when as { timezone: string }).timezone;
    expect(zoneOf('europe/berlin')).toBe('Europe/Berlin');
    expect(zoneOf('EUROPE/BERLIN')).toBe('Europe/Berlin');
    expect(zoneOf('america/port-au-prince')).toBe('America/Port-au-Prince');
    expect(zoneOf('utc')).toBe('UTC');
    expect(zoneOf('etc/gmt-2')).toBe('Etc/GMT-2');
    // A link name keeps its own name (not the zone the runtime resolves it to).
    expect(zoneOf('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(zoneOf('US/Eastern')).toBe('US/Eastern');
    // Same slot as the canonical spelling: 09:00 CET.
    expect(iso(validateWhen({ cron: '0 9 * * *', timezone: 'europe/berlin' }, rules).firstRunAt)).toBe('2026-03-28T08:00:00.000Z');
  });

  it('spells every IANA zone and link name as IANA does, from any case', () => {
    // The bundled list must hold only names this runtime's Intl takes, each unique ignoring case.
    expect(new Set(IANA_ZONE_NAMES.map((z) => z.toLowerCase())).size).toBe(IANA_ZONE_NAMES.length);
    const wrong = IANA_ZONE_NAMES.filter((z) => canonicalTimeZone(z.toLowerCase()) !== z || canonicalTimeZone(z.toUpperCase()) !== z);
    expect(wrong).toEqual([]);
  });

  it('refuses a UTC offset as a time zone with unknown_timezone, saying to use an IANA name', () => {
    for (const timezone of ['+02:00', '-0500', '+02', '+05:30', '\u221205:00', '+00:00']) expect(codeOf({ cron: '0 9 * * *', timezone }), timezone).toBe('unknown_timezone');
    expect(() => validateWhen({ cron: '0 9 * * *', timezone: '+02:00' }, rules)).toThrow(
      'when.timezone "+02:00" is a UTC offset, not a time zone: an offset does not follow daylight saving time. Use the IANA name of the place, such as "Europe/Berlin" or "America/New_York" (or "Etc/GMT-2" for UTC+02:00 all year)',
    );
    expect(() => validateWhen({ cron: '0 9 * * *', timezone: '-0500' }, rules)).toThrow('(or "Etc/GMT+5" for UTC-05:00 all year)');
    expect(() => validateWhen({ cron: '0 9 * * *', timezone: '+05:30' }, rules)).toThrow(/such as "Europe\/Berlin" or "America\/New_York"$/);
    expect(() => validateWhen({ cron: '0 9 * * *', timezone: 'Berlin' }, rules)).toThrow(
      'when.timezone "Berlin" is not a known IANA time zone: use a name such as "Europe/Berlin", "America/New_York" or "UTC"',
    );
  });

  it('says so when a known zone has spaces around it, and never echoes a control or bidi character as it is', () => {
    expect(() => validateWhen({ cron: '0 9 * * *', timezone: ' europe/berlin ' }, rules)).toThrow(
      'when.timezone " europe/berlin " has spaces around the name: send "Europe/Berlin" without them',
    );
    let message = '';
    try {
      validateWhen({ cron: '0 9 * * *', timezone: 'Europe/Berlin\u202e\u0085' }, rules);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('when.timezone "Europe/Berlin\\u202E\\u0085" is not a known IANA time zone');
    expect(message).not.toMatch(/[\u202e\u0085]/);
  });

  it('refuses a cron firing more often than the minimum interval with cron_too_frequent', () => {
    expect(codeOf({ cron: '*/10 * * * * *', timezone: 'UTC' })).toBe('cron_too_frequent'); // every 10 s
    expect(codeOf({ cron: '*/5 * * * *', timezone: 'UTC' }, { now, minIntervalS: 600 })).toBe('cron_too_frequent');
    expect(() => validateWhen({ cron: '* * * * *', timezone: 'UTC' }, rules)).not.toThrow();
    try {
      validateWhen({ cron: '*/5 * * * *', timezone: 'UTC' }, { now, minIntervalS: 600 });
    } catch (err) {
      expect((err as ScheduleError).details).toMatchObject({ interval_s: 300, min_interval_s: 600 });
    }
  });

  it('says the minimum interval and gives a cron that keeps it, checked in the zone given', () => {
    const messageOf = (cron: string, timezone: string, minIntervalS: number) => {
      try {
        validateWhen({ cron, timezone }, { now, minIntervalS });
      } catch (err) {
        expect((err as ScheduleError).code).toBe('cron_too_frequent');
        return (err as Error).message;
      }
      throw new Error('expected cron_too_frequent');
    };
    expect(messageOf('*/1 * * * *', 'UTC', 300)).toBe(
      'when.cron "*/1 * * * *" has slots only 60 s apart; the minimum interval is 300 s: send a cron whose slots are at least 300 s apart, e.g. "*/5 * * * *" (every 5 minutes)',
    );
    // A daily cron with two slots a second apart does not "fire every second": its closest slots are said.
    expect(messageOf('58,59 59 23 * * *', 'UTC', 60)).toMatch(/^when\.cron "58,59 59 23 \* \* \*" has slots only 1 s apart; the minimum interval is 60 s/);
    // 7 s: every 10 seconds, not */7 (which fires at :56 and again at :00).
    expect(messageOf('* * * * * *', 'UTC', 7)).toContain('e.g. "*/10 * * * * *" (every 10 seconds)');
    expect(messageOf('0 * * * *', 'UTC', 5_000)).toContain('e.g. "0 */2 * * *" (every 2 hours, on the hour)');
    expect(messageOf('0 * * * *', 'UTC', 86_400)).toContain('e.g. "0 9 * * *" (daily at 09:00)');
    // Berlin leaves winter time on 2026-03-29: the day before is 23 hours long, so daily is too often.
    expect(messageOf('0 * * * *', 'Europe/Berlin', 86_400)).toContain('e.g. "0 9 * * 1" (Mondays at 09:00)');
    for (const [timezone, minIntervalS] of [['UTC', 7], ['UTC', 300], ['UTC', 5_000], ['UTC', 86_400], ['Europe/Berlin', 86_400]] as const) {
      const example = /e\.g\. "([^"]+)"/.exec(messageOf('* * * * * *', timezone, minIntervalS))?.[1];
      expect(() => validateWhen({ cron: example, timezone }, { now, minIntervalS })).not.toThrow();
    }
  });
});

describe('cron slots across DST (croner semantics, documented in README)', () => {
  it('runs a fixed-time 02:30 job at 03:00 CEST on the Berlin spring-forward day, then 02:30 again', () => {
    const when = { cron: '30 2 * * *', timezone: 'Europe/Berlin' };
    const slots: string[] = [];
    let t = Date.parse('2026-03-27T12:00:00Z');
    for (let i = 0; i < 4; i++) {
      t = nextSlotAfter(when, t)!;
      slots.push(new Date(t).toISOString());
    }
    expect(slots).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:00:00.000Z', // 02:30 does not exist: first valid time after the gap, 03:00 CEST
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
      '2026-03-31T00:30:00.000Z',
    ]);
  });

  it('skips the gap for an interval job (*/30) on the spring-forward day', () => {
    const when = { cron: '*/30 * * * *', timezone: 'Europe/Berlin' };
    const slots: string[] = [];
    let t = Date.parse('2026-03-29T00:10:00Z'); // 01:10 CET
    for (let i = 0; i < 4; i++) {
      t = nextSlotAfter(when, t)!;
      slots.push(new Date(t).toISOString());
    }
    // 01:30 CET, then 03:00, 03:30, 04:00 CEST — 02:00 and 02:30 do not exist that day.
    expect(slots).toEqual(['2026-03-29T00:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-29T01:30:00.000Z', '2026-03-29T02:00:00.000Z']);
  });

  it('runs a fixed-time 02:30 job once on the fall-back day (first occurrence)', () => {
    const when = { cron: '30 2 * * *', timezone: 'Europe/Berlin' };
    const first = nextSlotAfter(when, Date.parse('2026-10-24T12:00:00Z'))!;
    expect(new Date(first).toISOString()).toBe('2026-10-25T00:30:00.000Z'); // 02:30 CEST, first pass
    // 02:30 comes again at 01:30Z (CET) that night; it does not run twice.
    expect(new Date(nextSlotAfter(when, first)!).toISOString()).toBe('2026-10-26T01:30:00.000Z');
  });

  it('counts the slots missed between two times', () => {
    const when = { cron: '0 * * * *', timezone: 'UTC' };
    expect(countSlotsBetween(when, Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-01-01T05:30:00Z'))).toBe(5);
    expect(countSlotsBetween({ at: '2026-01-01T00:00:00Z' }, 0, Date.parse('2026-01-01T05:30:00Z'))).toBe(0);
  });
});
