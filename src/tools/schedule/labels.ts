/**
 * Human labels for schedule tools' activity rows and outputs, e.g.
 * "Scheduling “daily report” for 09:00 Europe/Berlin" → "Scheduled “daily report” (next run Mon 09:00)".
 * Times are shown in the schedule's own zone: the cron `timezone`, the offset written in `at`,
 * or UTC for `after`.
 */
import type { Schedule, ScheduleWhen } from '../../schedules/types.js';
import { canonicalTimeZone } from '../../schedules/when.js';
import { count } from '../count.js';
import { clip } from '../../runtime/text-cut.js';

const SIX_DAYS_MS = 6 * 86_400_000;

/** `“name”` with typographic quotes (names are trimmed to 60 characters). */
export function quoted(name: string): string {
  return `“${clip(name, 60)}”`;
}

const OFFSET = /(Z|[+-]\d{2}:\d{2})$/i;

function offsetMinutes(at: string): number {
  const m = OFFSET.exec(at.trim());
  if (!m || m[1].toUpperCase() === 'Z') return 0;
  const sign = m[1][0] === '-' ? -1 : 1;
  return sign * (Number(m[1].slice(1, 3)) * 60 + Number(m[1].slice(4, 6)));
}

/**
 * Format `ms` as "Mon 09:00" (within six days of `now`) or "Mon 7 Dec 09:00" (further), in the
 * IANA `zone`, or in UTC shifted by `offsetMin` minutes when no zone is given.
 */
export function formatSlot(ms: number, now: number, zone?: string, offsetMin = 0): string {
  const near = Math.abs(ms - now) <= SIX_DAYS_MS;
  const fmt = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone ?? 'UTC',
    weekday: 'short',
    ...(near ? {} : { day: 'numeric', month: 'short' }),
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const parts = fmt.formatToParts(new Date(zone ? ms : ms + offsetMin * 60_000));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  const date = near ? get('weekday') : `${get('weekday')} ${get('day')} ${get('month')}`;
  return `${date} ${get('hour')}:${get('minute')}`;
}

/** The zone suffix a schedule's times are shown in ("Europe/Berlin", "+01:00", "UTC"). */
export function zoneOf(when: ScheduleWhen): string {
  if ('cron' in when) return when.timezone;
  if ('at' in when) {
    const m = OFFSET.exec(when.at.trim());
    return !m || m[1].toUpperCase() === 'Z' ? 'UTC' : m[1];
  }
  return 'UTC';
}

/**
 * A schedule's next run in its own zone, e.g. "Mon 09:00" (an `after` schedule's in UTC, with the
 * suffix: "Mon 09:00 UTC"); null when it has none. `zone: false` leaves the UTC suffix out (for
 * callers that append {@link zoneOf} themselves).
 */
export function formatNextRun(s: Pick<Schedule, 'next_run_at' | 'when'>, now: number, opts: { zone?: boolean } = {}): string | null {
  if (s.next_run_at === null) return null;
  const ms = Date.parse(s.next_run_at);
  const w = s.when;
  if ('cron' in w) return formatSlot(ms, now, w.timezone);
  if ('at' in w) return formatSlot(ms, now, undefined, offsetMinutes(w.at));
  return opts.zone === false ? formatSlot(ms, now) : `${formatSlot(ms, now)} UTC`;
}

/**
 * How a `when` reads in an activity label: "for 09:00 Europe/Berlin" (a daily cron at one time),
 * "for cron “0 9 * * 1-5” Europe/Berlin", "for 2026-12-01 09:00 +01:00", "in 10 minutes"; a
 * known zone in its canonical spelling, as it will be stored (`europe/berlin` → Europe/Berlin).
 * Tolerates a `when` that has not been validated yet (labels are shown before execute).
 */
export function describeWhen(when: unknown, now: number): string {
  const w = (when ?? {}) as Record<string, unknown>;
  if (typeof w.cron === 'string') {
    const tz = typeof w.timezone === 'string' ? ` ${canonicalTimeZone(w.timezone) ?? w.timezone}` : '';
    const f = w.cron.trim().split(/\s+/);
    if (f.length === 5 && /^\d{1,2}$/.test(f[0]) && /^\d{1,2}$/.test(f[1]) && f.slice(2).every((x) => x === '*')) {
      return `for ${f[1].padStart(2, '0')}:${f[0].padStart(2, '0')}${tz}`;
    }
    return `for cron “${w.cron.trim()}”${tz}`;
  }
  if (typeof w.at === 'string') {
    const ms = Date.parse(w.at);
    if (!Number.isFinite(ms)) return `for ${w.at}`;
    return `for ${formatSlot(ms, now, undefined, offsetMinutes(w.at))}${zoneOf({ at: w.at }) === 'UTC' ? ' UTC' : ` (${zoneOf({ at: w.at })})`}`;
  }
  const after = w.after as { value?: unknown; unit?: unknown } | undefined;
  if (after && typeof after.value === 'number' && typeof after.unit === 'string') return `in ${count(after.value, after.unit)}`;
  return '';
}

/** "Scheduled “daily report” (next run Mon 09:00)" / "(paused)" / "(no further runs)". */
export function scheduledLabel(verb: string, s: Schedule, now: number): string {
  if (s.status === 'paused') return verb === 'Paused' ? `${verb} ${quoted(s.name)}` : `${verb} ${quoted(s.name)} (paused)`;
  const next = formatNextRun(s, now);
  return next ? `${verb} ${quoted(s.name)} (next run ${next})` : `${verb} ${quoted(s.name)} (no further runs)`;
}
