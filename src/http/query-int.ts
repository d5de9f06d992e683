/**
 * An integer query parameter (`?limit=`): one bound, the route's, and the value echoed as the
 * client wrote it. `z.coerce.number().int()` would report `?limit=99999999999999999999999` twice
 * (past Number.MAX_SAFE_INTEGER and past the route's maximum) and as `1e+23`.
 */
import { z } from 'zod';
import { quoteForDisplayClipped } from '../unsafe-chars.js';

/** The value as sent, for a message: as written when short, else its length. */
const asSent = (raw: string) => (raw.length <= 40 ? raw : `a value of ${raw.length} characters`);

/** Plain decimal digits, with an optional `-` (so `-3` is below the range, not malformed). */
const DECIMAL = /^-?[0-9]+$/;

/**
 * A query parameter read as an integer from `min` to `max`; absent → `def`. Accepted: plain
 * decimal digits (`20`, `020`), as for integer environment variables. Refused with one issue, the
 * value echoed as sent (quoted by quoteForDisplayClipped: a bidi or control character as `\uXXXX`,
 * at most 40 characters): anything else — an exponent, a decimal point, hex, a sign
 * `+` (which arrives as a space), spaces, `""` — → `invalid_type` (`must be an integer written in
 * plain decimal digits, got "1e1"`); below or above the range (however many digits) →
 * `too_small` / `too_big` (`must be at most 100, got 99999999999999999999999`).
 */
export function queryInt(min: number, max: number, def: number) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return def;
      const n = DECIMAL.test(raw) ? Number(raw) : NaN;
      if (Number.isNaN(n)) {
        ctx.addIssue({ code: 'invalid_type', expected: 'int', input: raw, message: `must be an integer written in plain decimal digits, got ${quoteForDisplayClipped(raw, 40)}` });
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
