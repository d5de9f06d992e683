/**
 * `null` for an optional top-level field of a request body reads as the field left out, the way
 * GET answers show an unset field (`"metadata": null`): a client may send back what it read. A
 * required field sent as `null` is still refused as the wrong type, and fields whose `null` means
 * something of its own (PATCH /v1/schedules/{id}: null clears) do not use this.
 */
import { z } from 'zod';

/**
 * `schema` behind a step that drops every key whose value is `null` when the field is optional
 * (its schema accepts `undefined`: `.optional()`, `.default(…)`), so `{"metadata": null}` parses
 * as `{}`. Anything other than a plain object is passed on as it is (and refused by `schema`).
 * @returns a schema with `schema`'s output type; its issues and paths are `schema`'s.
 */
export function nullAsAbsent<S extends z.ZodObject>(schema: S) {
  const optional = new Set(Object.entries(schema.shape as Record<string, z.ZodType>).filter(([, field]) => field.safeParse(undefined).success).map(([key]) => key));
  return z.preprocess((body) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
    const entries = Object.entries(body);
    if (!entries.some(([key, value]) => value === null && optional.has(key))) return body;
    return Object.fromEntries(entries.filter(([key, value]) => !(value === null && optional.has(key))));
  }, schema);
}
