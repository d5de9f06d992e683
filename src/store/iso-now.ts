/**
 * The current time as an ISO 8601 string (`Date#toISOString`), for the timestamps the stores write
 * with every event and checkpoint. Formatting a date costs about a microsecond, and a turn's round
 * stamps several rows within the same millisecond (its event, its checkpoint): the string is made
 * once per millisecond of `Date.now()` and reused until the clock moves on (the same text
 * `new Date().toISOString()` gives).
 */
let lastMs = Number.NaN;
let lastIso = '';

/** `new Date().toISOString()`, formatted at most once per millisecond. */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
