/**
 * An integer query parameter (`?limit=`): one bound, the route's, and the value echoed as the
 * client wrote it. `z.coerce.number().int()` would report `?limit=99999999999999999999999` twice
 * (past Number.MAX_SAFE_INTEGER and past the route's maximum) and as `1e+23`.
 */
import { z } from 'zod';

/** The value as sent, for a message: as written when short, else its length. */
const asSent = (raw: string) => (raw.length <= 40 ? raw : `a value of ${raw.length} characters`);

/**
 * A query parameter read as an integer from `min` to `max`; absent → `def`. Accepted: what
 * JavaScript's `Number()` reads as an integer (`20`, ` 20 `, `2e1`). Refused with one issue, the
 * value echoed as sent: not a number or not whole → `invalid_type` (`must be an integer, got
 * "abc"` / `got 1.5`), below or above the range (however large, `1e400` too) → `too_small` /
 * `too_big` (`must be at most 100, got 99999999999999999999999`).
 */
export function queryInt(min: number, max: number, def: number) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return def;
      const n = raw.trim() === '' ? NaN : Number(raw);
      if (Number.isNaN(n) || (Number.isFinite(n) && !Number.isInteger(n))) {
        const got = Number.isNaN(n) ? JSON.stringify(asSent(raw)) : asSent(raw);
        ctx.addIssue({ code: 'invalid_type', expected: 'int', input: raw, message: `must be an integer, got ${got}` });
      } else if (n < min) {
        ctx.addIssue({ code: 'too_small', origin: 'number', minimum: min, inclusive: true, input: raw, message: `must be at least ${min}, got ${asSent(raw)}` });
      } else if (n > max) {
        ctx.addIssue({ code: 'too_big', origin: 'number', maximum: max, inclusive: true, input: raw, message: `must be at most ${max}, got ${asSent(raw)}` });
      } else {
        return n;
      }
      return z.NEVER;
    });
}
