/**
 * The message of a record key that fails its schema (src/zod-messages.ts `invalid_key`) names a
 * short key quoted with control and bidi characters escaped, so an echoed key cannot act on the
 * reader's display.
 */
import { expect, it } from 'vitest';
import { z } from 'zod';
import '../../src/zod-messages.js';

it('quotes a short invalid key with a bidi control escaped, and leaves a long one out', () => {
  const schema = z.record(z.string().regex(/^[a-z]+$/), z.number());
  const short = schema.safeParse({ 'a\u202Eb': 1 });
  expect(short.success).toBe(false);
  const message = short.error!.issues[0].message;
  expect(message).toMatch(/^has an invalid key "a\\u202Eb": /);
  expect(message).not.toContain('\u202E');
  const long = schema.safeParse({ ['A'.repeat(41)]: 1 });
  expect(long.error!.issues[0].message).toMatch(/^has an invalid key: /);
});
