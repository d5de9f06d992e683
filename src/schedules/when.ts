/**
 * Validation and next-run computation for a schedule's `when`.
 *
 * Cron expressions are parsed and evaluated by croner 11 (5 fields, or 6 with a leading seconds
 * field; nicknames such as `@daily`), in the schedule's IANA time zone. Day-of-month and
 * day-of-week combine with OR, as in Vixie cron. DST follows croner (which follows Vixie cron):
 * - a *fixed-time* job (one value each in minute and hour, e.g. `30 2 * * *`) whose time does not
 *   exist on a spring-forward day runs once at the first valid time after the gap (02:30 in
 *   Europe/Berlin on 2026-03-29 runs at 03:00 CEST); a time that occurs twice (fall back) runs once,
 *   at the first occurrence;
 * - an *interval* job (wildcard, step, range or list in minute/hour, e.g. `*\/30 * * * *`) skips
 *   the times inside the gap and runs on both occurrences of a repeated hour.
 * (croner README, "Pattern" → DST handling; verified in test/schedules/when.test.ts.)
 */
import { escapeNonAscii, escapeUnsafeChars, escapeUnsafeCharsClipped, escapeUnsafeCharsDeep, hex4, MAX_QUOTED_CHARS, quoteForDisplay, quoteForDisplayClipped } from '../unsafe-chars.js';
import { keepHead } from '../runtime/text-cut.js';
import { Cron } from 'croner';
import { ScheduleError } from './errors.js';
import { IANA_ZONE_NAMES } from './iana-zone-names.js';
import type { AfterUnit, ScheduleWhen } from './types.js';

export const AFTER_UNITS: readonly AfterUnit[] = ['second', 'minute', 'hour', 'day', 'week'];
const UNIT_MS: Record<AfterUnit, number> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
};
/** Furthest a one-shot may lie ahead: 10 years. */
const MAX_AHEAD_MS = 10 * 366 * 86_400_000;
/** How many upcoming cron slots are inspected for the minimum-interval check. */
const INTERVAL_SAMPLE = 64;
/** Cap when counting slots missed during downtime. */
const MAX_MISSED_COUNT = 1_000;

/** A validated `when` plus the first slot it fires (ms since epoch). */
export interface ValidWhen {
  when: ScheduleWhen;
  firstRunAt: number;
}

export interface WhenRules {
  /** Now, ms since epoch. */
  now: number;
  /** SCHEDULE_MIN_INTERVAL_S: the closest two cron slots may be. */
  minIntervalS: number;
}

const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * Parse an ISO 8601 time that carries an offset (`2030-01-15T09:00:00+01:00`, `…Z`).
 * @returns ms since epoch
 * @throws ScheduleError `invalid_at` for a missing offset, impossible date (Feb 30) or other format
 */
export function parseIsoWithOffset(at: string): number {
  const m = ISO_WITH_OFFSET.exec(at.trim());
  if (!m) {
    throw new ScheduleError(
      'invalid_at',
      `when.at ${quoteForDisplayClipped(at)} is not an ISO 8601 time with an offset: send a date and time with its offset, e.g. "2030-01-15T09:00:00+01:00" or "2030-01-15T08:00:00Z"`,
      { at: escapeUnsafeCharsClipped(at) },
    );
  }
  const [, y, mo, d, h, mi, s] = m;
  const probe = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, s ? +s : 0));
  const ms = Date.parse(at.trim());
  if (
    !Number.isFinite(ms) ||
    probe.getUTCFullYear() !== +y ||
    probe.getUTCMonth() !== +mo - 1 ||
    probe.getUTCDate() !== +d ||
    probe.getUTCHours() !== +h ||
    probe.getUTCMinutes() !== +mi
  ) {
    throw new ScheduleError('invalid_at', `when.at ${quoteForDisplayClipped(at)} is not a real date and time`, { at: escapeUnsafeCharsClipped(at) });
  }
  return ms;
}

/** A UTC offset written where a zone goes (`+02:00`, `-0500`, `+02`, `\u221205:00`). */
const UTC_OFFSET = /^[+\-\u2212](\d{2})(?::?(\d{2}))?$/;

/**
 * Lower-case name → its spelling: every IANA zone and link name (IANA_ZONE_NAMES, so links such as
 * `Asia/Kolkata` and `US/Eastern` too), then the zones this runtime lists that the bundled list
 * lacks (a zone added to tzdata after it; plus `UTC`, which Intl's list leaves out).
 */
let zoneSpellings: Map<string, string> | undefined;
function spellingOf(lower: string): string | undefined {
  if (!zoneSpellings) {
    zoneSpellings = new Map(IANA_ZONE_NAMES.map((z) => [z.toLowerCase(), z]));
    for (const z of [...Intl.supportedValuesOf('timeZone'), 'UTC']) if (!zoneSpellings.has(z.toLowerCase())) zoneSpellings.set(z.toLowerCase(), z);
  }
  return zoneSpellings.get(lower);
}

/**
 * The IANA time-zone name `zone` names, in its canonical spelling, or undefined when it names
 * none this runtime knows. Names match case-insensitively (as in the tz database) and come back
 * spelled as IANA spells them: `europe/berlin` → `Europe/Berlin`, `utc` → `UTC`,
 * `etc/gmt-2` → `Etc/GMT-2`; a link name keeps its own name, only its case fixed, not the zone
 * Intl resolves it to (`asia/kolkata` → `Asia/Kolkata`, not `Asia/Calcutta`; `us/eastern` →
 * `US/Eastern`, `gb` → `GB`). Which names are known is Intl's decision; a name Intl takes that is
 * in neither IANA_ZONE_NAMES nor Intl's list keeps the client's spelling. Undefined for unknown names, for names with
 * surrounding whitespace, and for UTC offsets (`+02:00`, `-0500`), which `Intl` accepts but are
 * not time zones: an offset does not follow daylight saving time.
 */
export function canonicalTimeZone(zone: string): string | undefined {
  // No IANA name starts with a sign: this refuses every offset form Intl would take.
  // IANA names are printable ASCII: a look-alike (the Kelvin sign U+212A lower-cases to "k") is no name.
  if (zone.trim() === '' || zone !== zone.trim() || /^[+\-\u2212]/.test(zone) || /[^\x20-\x7E]/.test(zone)) return undefined;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  const lower = zone.toLowerCase();
  return spellingOf(lower) ?? (resolved.toLowerCase() === lower ? resolved : zone);
}

/**
 * The `unknown_timezone` refusal of `zone` (details `{timezone}`: the value with control, bidi and
 * other non-ASCII characters written as `\uXXXX` escapes, exactly as in the message; IANA names are
 * ASCII, so a look-alike such as the Kelvin sign shows as `\u212A`, not as K). For a UTC offset it says that
 * an offset is not a zone and names the IANA zones to use instead — the place's zone, or for a
 * whole-hour offset the fixed `Etc/GMT∓h` zone (POSIX sign: `+02:00` is `Etc/GMT-2`).
 */
function unknownTimeZone(zone: string): ScheduleError {
  const offset = UTC_OFFSET.exec(zone);
  if (offset) {
    const hours = Number(offset[1]);
    const minutes = Number(offset[2] ?? '0');
    const east = zone[0] === '+';
    const fixed =
      minutes !== 0 ? '' : hours === 0 ? ' (or "UTC")' : hours <= (east ? 14 : 12) ? ` (or "Etc/GMT${east ? '-' : '+'}${hours}" for UTC${east ? '+' : '-'}${offset[1]}:00 all year)` : '';
    return new ScheduleError(
      'unknown_timezone',
      `when.timezone ${visible(zone)} is a UTC offset, not a time zone: an offset does not follow daylight saving time. Use the IANA name of the place, such as "Europe/Berlin" or "America/New_York"${fixed}`,
      { timezone: zoneForDetails(zone) },
    );
  }
  if (zone.trim() !== '' && zone !== zone.trim() && canonicalTimeZone(zone.trim())) {
    return new ScheduleError(
      'unknown_timezone',
      `when.timezone ${visible(zone)} has spaces around the name: send ${JSON.stringify(canonicalTimeZone(zone.trim()))} without them`,
      { timezone: zoneForDetails(zone) },
    );
  }
  const foreign = /[^\x00-\x7F]/u.exec(zone)?.[0];
  const ascii = foreign ? ` (IANA names are ASCII; it has U+${hex4(foreign)})` : '';
  return new ScheduleError(
    'unknown_timezone',
    `when.timezone ${visible(zone)} is not a known IANA time zone${ascii}: use a name such as "Europe/Berlin", "America/New_York" or "UTC"`,
    { timezone: zoneForDetails(zone) },
  );
}

/**
 * `zone` quoted for a message ({@link quoteForDisplay}), other non-ASCII characters escaped too
 * (`\u212A`) as in details; over {@link MAX_QUOTED_CHARS} characters, its start and its length, as
 * quoteForDisplayClipped shows a value.
 */
function visible(zone: string): string {
  if (zone.length <= MAX_QUOTED_CHARS) return escapeNonAscii(quoteForDisplay(zone));
  return `${escapeNonAscii(quoteForDisplay(keepHead(zone, MAX_QUOTED_CHARS)))}… (${zone.length} characters)`;
}

/** `zone` for the details of its refusal: escaped as in {@link visible}, unquoted, and cut the same way. */
function zoneForDetails(zone: string): string {
  if (zone.length <= MAX_QUOTED_CHARS) return escapeNonAscii(zone);
  return `${escapeNonAscii(keepHead(zone, MAX_QUOTED_CHARS))}… (${zone.length} characters)`;
}


/** A paused croner job for evaluation only (never runs a callback). */
export function cronJob(expression: string, timezone: string): Cron {
  return new Cron(expression, { timezone, paused: true, mode: '5-or-6-parts' });
}

/** The two accepted cron forms, each with an example: the end of every `invalid_cron` refusal of a malformed expression. */
const CRON_FORMS =
  'Use 5 fields "minute hour day-of-month month day-of-week", e.g. "0 9 * * 1-5", or 6 with seconds first "second minute hour day-of-month month day-of-week", e.g. "30 0 9 * * 1-5"';
/** The nicknames croner takes for a whole expression. */
const CRON_NICKNAMES = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
/**
 * The six fields in croner's order (a 5-field expression has no `second`), each with the values it
 * takes and the characters it takes besides digits and names (croner's own set; `?` reads as `*`).
 */
const CRON_FIELDS: readonly { name: string; values: string; chars: string }[] = [
  { name: 'second', values: '0–59', chars: '*, ",", "-" and "/"' },
  { name: 'minute', values: '0–59', chars: '*, ",", "-" and "/"' },
  { name: 'hour', values: '0–23', chars: '*, ",", "-" and "/"' },
  { name: 'day-of-month', values: '1–31', chars: '*, ",", "-", "/", L and W' },
  { name: 'month', values: '1–12 or JAN–DEC', chars: '*, ",", "-" and "/"' },
  { name: 'day-of-week', values: '0–7 (0 and 7 are Sunday) or SUN–SAT', chars: '*, ",", "-", "/", L and #' },
];
/** croner's name of a field (in its messages) → its index in CRON_FIELDS. */
const CRONER_FIELD: Record<string, number> = { second: 0, minute: 1, hour: 2, day: 3, nearestWeekdays: 3, month: 4, dayOfWeek: 5 };

/**
 * Why `expression` (whitespace already collapsed) is not a cron expression, in our words: a wrong
 * field count or an unknown nickname before croner sees it; for croner's refusal `err`, the field
 * at fault with what the client wrote and the values it takes (a value out of range, a character a
 * field does not take, an empty list item), else croner's own reason without its `CronPattern:`
 * prefix. Client text comes back with control and bidi characters escaped, and cut when long (quoteForDisplayClipped).
 */
function cronReason(expression: string, err?: Error): string {
  const fields = expression.split(' ');
  if (!err) {
    if (expression.startsWith('@')) return `${quoteForDisplayClipped(expression)} is none of the nicknames ${CRON_NICKNAMES.join(', ')}`;
    return `it has ${fields.length} field${fields.length === 1 ? '' : 's'}${fields.length === 7 ? ' (a year field is not taken)' : ''}`;
  }
  /** The field croner counts as `index` (0 = second), named, with what the client wrote in it. */
  const field = (index: number) => {
    const { name, values, chars } = CRON_FIELDS[index];
    const text = fields.length === 5 ? fields[index - 1] : fields[index];
    return { name, values, chars, text: text === undefined ? '' : quoteForDisplayClipped(text) };
  };
  const message = err.message.trim();
  const range = /^CronPattern: Invalid value for (\w+):/.exec(message);
  if (range && CRONER_FIELD[range[1]] !== undefined) {
    const f = field(CRONER_FIELD[range[1]]);
    return `the ${f.name} field ${f.text} is out of range: it takes ${f.values}`;
  }
  const illegal = /^CronPattern: configuration entry (\d) \(/.exec(message);
  if (illegal && CRON_FIELDS[Number(illegal[1])]) {
    const f = field(Number(illegal[1]));
    return `the ${f.name} field ${f.text} has a character a cron field does not take: it takes ${f.values}, with ${f.chars}`;
  }
  const empty = /^CronPattern: configuration entry (\w+) \(\) is empty/.exec(message);
  if (empty && CRONER_FIELD[empty[1]] !== undefined) {
    const f = field(CRONER_FIELD[empty[1]]);
    return `the ${f.name} field ${f.text} has an empty item (a comma too many)`;
  }
  // Croner's words quote what the client wrote (`('Laaaa…')`, `Value: 9999…`): each word is escaped, a long one cut to its start and its length.
  return message
    .replace(/^CronPattern:\s*/, '')
    .replace(/, Type: \w+\.?$/, '')
    .replace(/[.\s]+$/, '')
    .split(/(\s+)/)
    .map((word) => escapeUnsafeCharsClipped(word))
    .join('');
}

/** The `invalid_cron` refusal of a malformed `expression` (details `{cron}` escaped as in the message). */
function invalidCron(expression: string, err?: Error): ScheduleError {
  return new ScheduleError('invalid_cron', `when.cron ${quoteForDisplayClipped(expression)} is not a valid cron expression: ${cronReason(expression, err)}. ${CRON_FORMS}`, {
    cron: escapeUnsafeCharsClipped(expression),
  });
}

/** Days in each month (February in a leap year), January first. */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MONTH_ABBREVIATIONS = MONTH_NAMES.map((m) => m.slice(0, 3).toLowerCase());

/**
 * The values a cron field of numbers (`30`, `1,15`, `1-5`, `1-31/2`; month names `feb`, `jan-mar`)
 * selects, or undefined for anything else (`*`, `L`, `W`, `?`, `#`), which this does not reason about.
 */
function fieldValues(field: string, names: string[] = []): number[] | undefined {
  const value = (t: string) => (/^\d+$/.test(t) ? Number(t) : names.indexOf(t.toLowerCase()) + 1 || undefined);
  const out: number[] = [];
  for (const item of field.split(',')) {
    const m = /^([^-/]+)(?:-([^-/]+))?(?:\/(\d+))?$/.exec(item);
    if (!m) return undefined;
    const from = value(m[1]);
    const to = m[2] === undefined ? (m[3] === undefined ? from : undefined) : value(m[2]);
    const step = m[3] === undefined ? 1 : Number(m[3]);
    if (from === undefined || to === undefined || step < 1) return undefined;
    for (let v = from; v <= to; v += step) out.push(v);
  }
  return out.length > 0 ? out : undefined;
}

/**
 * Why a cron `expression` that croner accepts never fires, and what to do: a day of the month that
 * none of the months given has, every day given named — `February has no day 30: choose a day that
 * exists in the month given`, `February has no day 30 or 31: …` for `30-31` — or, when the fields say no more, `no date matches all its fields; check the
 * day-of-month and month fields`.
 */
function neverFiresReason(expression: string): string {
  const general = 'no date matches all its fields; check the day-of-month and month fields';
  const fields = expression.split(' ');
  if (fields.length !== 5 && fields.length !== 6) return general;
  const [dom, month] = fields.length === 6 ? [fields[3], fields[4]] : [fields[2], fields[3]];
  const days = fieldValues(dom);
  const months = fieldValues(month, MONTH_ABBREVIATIONS);
  if (!days || !months || months.some((m) => m < 1 || m > 12)) return general;
  const firstDay = Math.min(...days);
  const unique = [...new Set(months)].sort((a, b) => a - b);
  if (!unique.every((m) => MONTH_DAYS[m - 1] < firstDay)) return general;
  const names = unique.map((m) => MONTH_NAMES[m - 1]);
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  // Every day given is at least firstDay, so none of them exists in these months: name them all.
  const given = [...new Set(days)].sort((a, b) => a - b);
  const dayList = given.length === 1 ? `${given[0]}` : `${given.slice(0, -1).join(', ')} or ${given.at(-1)}`;
  return `${list} ${names.length === 1 ? 'has' : 'have'} no day ${dayList}: choose a day that exists in the month${names.length === 1 ? '' : 's'} given`;
}

/** Shortest gap (ms) between the next {@link INTERVAL_SAMPLE} slots of `job` after `now` (Infinity for fewer than two). */
function shortestGap(job: Cron, now: number): number {
  const runs = job.nextRuns(INTERVAL_SAMPLE, new Date(now));
  let minGap = Infinity;
  for (let i = 1; i < runs.length; i++) minGap = Math.min(minGap, runs[i].getTime() - runs[i - 1].getTime());
  return minGap;
}

/**
 * Regular schedules from every second to monthly, shortest first: `every` is the nominal gap in
 * seconds (a DST change can shorten a daily one by an hour, so each is checked before it is offered).
 */
const EXAMPLE_CRONS: readonly { cron: string; every: number; says: string }[] = [
  ...[1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30].map((s) => ({ cron: `*/${s} * * * * *`, every: s, says: s === 1 ? 'every second' : `every ${s} seconds` })),
  { cron: '* * * * *', every: 60, says: 'every minute' },
  ...[2, 3, 4, 5, 6, 10, 12, 15, 20, 30].map((m) => ({ cron: `*/${m} * * * *`, every: m * 60, says: `every ${m} minutes` })),
  { cron: '0 * * * *', every: 3_600, says: 'every hour, on the hour' },
  ...[2, 3, 4, 6, 8, 12].map((h) => ({ cron: `0 */${h} * * *`, every: h * 3_600, says: `every ${h} hours, on the hour` })),
  { cron: '0 9 * * *', every: 86_400, says: 'daily at 09:00' },
  { cron: '0 9 * * 1', every: 604_800, says: 'Mondays at 09:00' },
  { cron: '0 9 1 * *', every: 28 * 86_400, says: 'on the 1st of each month at 09:00' },
];

/**
 * The most frequent of {@link EXAMPLE_CRONS} whose slots in `timezone` after `now` are at least
 * `minIntervalS` seconds apart, for the `cron_too_frequent` message; undefined if none is.
 */
function exampleCron(minIntervalS: number, timezone: string, now: number): (typeof EXAMPLE_CRONS)[number] | undefined {
  return EXAMPLE_CRONS.find((e) => e.every >= minIntervalS && shortestGap(cronJob(e.cron, timezone), now) >= minIntervalS * 1000);
}

/** The first cron slot (ms) of `expression` in the (canonical, known) `timezone`, checked against `rules`. */
function validateCron(expression: string, timezone: string, rules: WhenRules): number {
  const fieldCount = expression.split(' ').length;
  if (expression.startsWith('@') ? !CRON_NICKNAMES.includes(expression.toLowerCase()) : fieldCount !== 5 && fieldCount !== 6) {
    throw invalidCron(expression);
  }
  let job: Cron;
  try {
    job = cronJob(expression, timezone);
  } catch (err) {
    throw invalidCron(expression, err as Error);
  }
  const runs = job.nextRuns(INTERVAL_SAMPLE, new Date(rules.now));
  if (runs.length === 0) {
    throw new ScheduleError('invalid_cron', `when.cron ${quoteForDisplayClipped(expression)} never fires: ${neverFiresReason(expression)}`, {
      cron: escapeUnsafeCharsClipped(expression),
    });
  }
  let minGap = Infinity;
  for (let i = 1; i < runs.length; i++) minGap = Math.min(minGap, runs[i].getTime() - runs[i - 1].getTime());
  if (minGap < rules.minIntervalS * 1000) {
    const example = exampleCron(rules.minIntervalS, timezone, rules.now);
    throw new ScheduleError(
      'cron_too_frequent',
      // "Slots only N s apart", not "fires every N s": `58,59 59 23 * * *` fires daily, twice a second apart.
      `when.cron ${quoteForDisplayClipped(expression)} has slots only ${minGap / 1000} s apart; the minimum interval is ${rules.minIntervalS} s: ` +
        `send a cron whose slots are at least ${rules.minIntervalS} s apart` +
        (example ? `, e.g. "${example.cron}" (${example.says})` : ''),
      { cron: escapeUnsafeCharsClipped(expression), interval_s: minGap / 1000, min_interval_s: rules.minIntervalS },
    );
  }
  return runs[0].getTime();
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What a value is, for `details.got` (`missing`, `null`, `array`, `string`, …). */
function kindOf(v: unknown): string {
  return v === undefined ? 'missing' : v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

const WHEN_FORMS = ['at', 'after', 'cron'];

/**
 * Validate a raw `when` (from REST or a tool call) and compute its first slot.
 * @throws ScheduleError `invalid_when` (not an object: details `{got, forms}`; none or several
 *   forms, stray keys: `{given, forms}`), `invalid_at` (`{at}`), `at_in_past` (`{at, now}`),
 *   `invalid_after` (`{after}` or `{value}`), `timezone_required` (`{cron, missing: ["timezone"]}`: no
 *   timezone, null, or an empty or all-blank string),
 *   `unknown_timezone` (`{timezone}`: not an IANA name, or a UTC offset such as `+02:00`),
 *   `invalid_cron` (`{cron}`), `cron_too_frequent` (`{cron, interval_s, min_interval_s}`; the message
 *   gives the minimum and a cron that keeps it, e.g. `"*\/5 * * * *" (every 5 minutes)` for 300 s).
 * @returns the `when` to store: a cron's expression with runs of whitespace made one space, and
 *   its zone in canonical spelling ({@link canonicalTimeZone}: `europe/berlin` → `Europe/Berlin`).
 */
export function validateWhen(raw: unknown, rules: WhenRules): ValidWhen {
  const forms = 'exactly one of {"at": "<ISO 8601 time with offset>"}, {"after": {"value": 10, "unit": "minute"}} or {"cron": "0 9 * * *", "timezone": "Europe/Berlin"}';
  if (!isObject(raw)) throw new ScheduleError('invalid_when', `when must be an object: ${forms}`, { got: kindOf(raw), forms: WHEN_FORMS });
  const present = (['at', 'after', 'cron'] as const).filter((k) => raw[k] !== undefined && raw[k] !== null);
  if (present.length !== 1) {
    throw new ScheduleError(
      'invalid_when',
      present.length === 0 ? `when has none of at, after, cron: give ${forms}` : `when has both ${present.join(' and ')}: give ${forms}`,
      { given: present, forms: WHEN_FORMS },
    );
  }
  const form = present[0];
  const allowed = form === 'cron' ? ['cron', 'timezone'] : [form];
  const stray = Object.keys(raw).filter((k) => !allowed.includes(k) && raw[k] !== undefined && raw[k] !== null);
  if (stray.length > 0) {
    throw new ScheduleError('invalid_when', `when.${form} cannot be combined with ${stray.join(', ')}: give ${forms}`, {
      given: [form, ...stray],
      forms: WHEN_FORMS,
    });
  }
  if (form === 'at') {
    if (typeof raw.at !== 'string') throw new ScheduleError('invalid_at', 'when.at must be a string (ISO 8601 with offset)', { at: escapeUnsafeCharsDeep(raw.at) });
    const at = parseIsoWithOffset(raw.at);
    if (at <= rules.now) {
      throw new ScheduleError('at_in_past', `when.at ${escapeUnsafeCharsClipped(raw.at)} is not in the future (now is ${new Date(rules.now).toISOString()}): send a later time, or use when.after for a delay from now`, {
        at: escapeUnsafeCharsClipped(raw.at),
        now: new Date(rules.now).toISOString(),
      });
    }
    if (at - rules.now > MAX_AHEAD_MS) throw new ScheduleError('invalid_at', `when.at ${escapeUnsafeCharsClipped(raw.at)} is more than 10 years ahead: send a time within 10 years`, { at: escapeUnsafeCharsClipped(raw.at) });
    return { when: { at: raw.at.trim() }, firstRunAt: at };
  }
  if (form === 'after') {
    const after = raw.after;
    if (!isObject(after) || typeof after.unit !== 'string' || !AFTER_UNITS.includes(after.unit as AfterUnit)) {
      throw new ScheduleError('invalid_after', `when.after must be {"value": <positive integer>, "unit": one of ${AFTER_UNITS.join('|')}}`, { after: escapeUnsafeCharsDeep(after), units: AFTER_UNITS });
    }
    const value = after.value;
    const unit = after.unit as AfterUnit;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value * UNIT_MS[unit] > MAX_AHEAD_MS) {
      throw new ScheduleError('invalid_after', `when.after.value must be a positive integer and at most 10 years ahead (got ${typeof value === 'string' ? quoteForDisplayClipped(value) : escapeUnsafeChars(String(JSON.stringify(value)))})`, {
        value: escapeUnsafeCharsDeep(value),
      });
    }
    return { when: { after: { value, unit } }, firstRunAt: rules.now + value * UNIT_MS[unit] };
  }
  if (typeof raw.cron !== 'string' || raw.cron.trim() === '') {
    throw new ScheduleError('invalid_cron', 'when.cron must be a non-empty cron expression string, e.g. "0 9 * * 1-5"', { cron: escapeUnsafeCharsDeep(raw.cron) });
  }
  if (raw.timezone === undefined || raw.timezone === null) {
    throw new ScheduleError('timezone_required', 'when.timezone is required with when.cron (there is no default zone): an IANA name such as "Europe/Berlin" or "UTC"', {
      cron: escapeUnsafeCharsClipped(raw.cron),
      missing: ['timezone'],
    });
  }
  if (typeof raw.timezone === 'string' && raw.timezone.trim() === '') {
    throw new ScheduleError('timezone_required', 'when.timezone is empty: with when.cron give an IANA name such as "Europe/Berlin" or "UTC" (there is no default zone)', {
      cron: escapeUnsafeCharsClipped(raw.cron),
      missing: ['timezone'],
    });
  }
  if (typeof raw.timezone !== 'string') {
    throw new ScheduleError('unknown_timezone', 'when.timezone must be a string: an IANA name such as "Europe/Berlin" or "UTC"', { timezone: escapeUnsafeCharsDeep(raw.timezone) });
  }
  const timezone = canonicalTimeZone(raw.timezone);
  if (timezone === undefined) throw unknownTimeZone(raw.timezone);
  const cron = raw.cron.trim().replace(/\s+/g, ' ');
  return { when: { cron, timezone }, firstRunAt: validateCron(cron, timezone, rules) };
}

/** True for `{cron, timezone}`. */
export function isRecurring(when: ScheduleWhen): when is { cron: string; timezone: string } {
  return 'cron' in when;
}

/** Next cron slot strictly after `afterMs`, or null (one-shots never have a next slot). */
export function nextSlotAfter(when: ScheduleWhen, afterMs: number): number | null {
  if (!isRecurring(when)) return null;
  return cronJob(when.cron, when.timezone).nextRun(new Date(afterMs))?.getTime() ?? null;
}

/**
 * Count cron slots strictly after `fromMs` and at or before `toMs` (slots missed during downtime,
 * beyond the one being fired). 0 for one-shots. Capped at 1 000 (croner evaluates ~0.3 ms per slot in a zone).
 */
export function countSlotsBetween(when: ScheduleWhen, fromMs: number, toMs: number): number {
  if (!isRecurring(when) || toMs <= fromMs) return 0;
  const job = cronJob(when.cron, when.timezone);
  let count = 0;
  let cursor = new Date(fromMs);
  while (count < MAX_MISSED_COUNT) {
    const next = job.nextRun(cursor);
    if (!next || next.getTime() > toMs) break;
    count++;
    cursor = next;
  }
  return count;
}
