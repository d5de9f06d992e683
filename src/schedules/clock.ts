/**
 * The scheduler's notion of "now", injectable so tests can move time (one-shot due, DST change,
 * downtime) without waiting.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** Wall-clock time (`Date.now()`). */
export const systemClock: Clock = { now: () => Date.now() };
