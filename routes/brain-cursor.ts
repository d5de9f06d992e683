/**
 * The brain pages list's cursor: the last slug of a page, base64url-encoded, so that `next_cursor`
 * is opaque and a cursor the service never returned is told apart from a position (a slug is a
 * valid position whether or not a page has it) — as every other list refuses a foreign cursor.
 */
import { z } from 'zod';
import { SLUG_PATTERN } from '../src/brain/brain-store.js';
import { FOREIGN_CURSOR_MESSAGE } from '../src/list-cursor.js';

/** `next_cursor` for a page ending at `slug`; null stays null (the last page). */
export function encodeBrainCursor(slug: string | null): string | null {
  return slug === null ? null : Buffer.from(slug, 'utf8').toString('base64url');
}

/**
 * Query schema of `cursor`: decodes to the slug to list after; anything that is not the canonical
 * encoding of a slug is a 400 `invalid_request` issue `cursor is not one this service returned: pass
 * back the next_cursor …`, code `invalid_format` — the same issue as every other list's foreign
 * cursor (src/list-cursor.ts).
 */
export const BrainCursor = z.string().transform((cursor, ctx) => {
  const slug = Buffer.from(cursor, 'base64url').toString('utf8');
  if (SLUG_PATTERN.test(slug) && encodeBrainCursor(slug) === cursor) return slug;
  ctx.addIssue({ code: 'invalid_format', format: 'regex', input: cursor, message: FOREIGN_CURSOR_MESSAGE });
  return z.NEVER;
});
