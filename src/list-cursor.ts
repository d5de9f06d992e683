/**
 * The `cursor` of every list route (turns, jobs, workflows, schedules and their runs, brain pages):
 * one refusal for a cursor the list never returned, wherever it is checked (a route's query schema
 * or the service that decodes it) — 400 `invalid_request` `cursor is not one this service returned:
 * pass back the next_cursor of the previous page unchanged, or leave cursor out for the first
 * page`, details `[{path: "cursor", code: "invalid_format", message}]` (`message` without the path).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { HttpError } from './http/errors.js';

/** What is wrong with a foreign cursor and what to send instead (the detail's message; the path is left out). */
export const FOREIGN_CURSOR = 'is not one this service returned: pass back the next_cursor of the previous page unchanged, or leave cursor out for the first page';

/** The 400 message of a foreign cursor: `cursor ` + {@link FOREIGN_CURSOR}. */
export const FOREIGN_CURSOR_MESSAGE = `cursor ${FOREIGN_CURSOR}`;

/** The 400's detail of a foreign cursor: `{path: "cursor", code: "invalid_format", message: FOREIGN_CURSOR}`. */
export function foreignCursorIssue(): { path: 'cursor'; code: 'invalid_format'; message: string } {
  return { path: 'cursor', code: 'invalid_format', message: FOREIGN_CURSOR };
}

/**
 * Query schema of an opaque cursor that the service decodes itself (schedules and their runs): 1
 * to 200 characters, else the foreign-cursor issue; the decoder refuses the rest with the same issue.
 */
export const OpaqueCursor = z.string().regex(/^[\s\S]{1,200}$/, FOREIGN_CURSOR_MESSAGE);

/** What is wrong with a cursor sent with other filters than the request that returned it (the detail's message). */
export function otherQueryCursor(filters: readonly string[]): string {
  const names = filters.join(' or ');
  return `was returned for a list with another ${names}: pass it back with the same ${filters.join(' and ')} as the request that returned it, or leave cursor out for the first page`;
}

/** Bytes of the query fingerprint in a {@link encodeQueryCursor} cursor. */
const QUERY_TAG_BYTES = 8;

function queryTag(query: Readonly<Record<string, string | undefined>>): Buffer {
  const canonical = JSON.stringify(Object.keys(query).sort().map((k) => [k, query[k] ?? null]));
  return createHash('sha256').update(canonical).digest().subarray(0, QUERY_TAG_BYTES);
}

/**
 * The `next_cursor` of a list paged by UUIDs whose page depends on filters (GET /v1/turns, /v1/jobs and /v1/workflows: agent_id,
 * status): the id of the page's last item and a fingerprint of `query` (8 bytes of the SHA-256 of
 * its values, absent ones as null), base64url — 32 characters, opaque to clients.
 * @param id a UUID (`xxxxxxxx-xxxx-…`).
 * @param query the filters of the request that makes the page, by name (undefined: not given).
 */
export function encodeQueryCursor(id: string, query: Readonly<Record<string, string | undefined>>): string {
  return Buffer.concat([Buffer.from(id.replaceAll('-', ''), 'hex'), queryTag(query)]).toString('base64url');
}

/**
 * Query schema of a {@link encodeQueryCursor} cursor: decodes to `{id, tag}`; anything that is not
 * the canonical encoding of 16 + 8 bytes is the foreign-cursor issue ({@link FOREIGN_CURSOR_MESSAGE}).
 * Check it against the request's filters with {@link cursorIdFor}.
 */
export const QueryCursor = z.string().transform((cursor, ctx) => {
  const bytes = /^[A-Za-z0-9_-]{32}$/.test(cursor) ? Buffer.from(cursor, 'base64url') : Buffer.alloc(0);
  if (bytes.length !== 16 + QUERY_TAG_BYTES || bytes.toString('base64url') !== cursor) {
    ctx.addIssue({ code: 'invalid_format', format: 'regex', input: cursor, message: FOREIGN_CURSOR_MESSAGE });
    return z.NEVER;
  }
  const hex = bytes.subarray(0, 16).toString('hex');
  return { id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`, tag: bytes.subarray(16) };
});

/**
 * The id a decoded {@link QueryCursor} stands for, when it was made for `query` (undefined without a cursor).
 * @throws HttpError 400 `invalid_request` `cursor was returned for a list with another agent_id or
 *   status: pass it back with the same agent_id and status as the request that returned it, or
 *   leave cursor out for the first page`, details `[{path: "cursor", code: "invalid_value", message}]`
 *   (`message` without the path) — instead of a page of another list, often empty.
 */
export function cursorIdFor(cursor: { id: string; tag: Buffer } | undefined, query: Readonly<Record<string, string | undefined>>): string | undefined {
  if (cursor === undefined) return undefined;
  if (!cursor.tag.equals(queryTag(query))) {
    const message = otherQueryCursor(Object.keys(query));
    throw new HttpError(400, 'invalid_request', `cursor ${message}`, [{ path: 'cursor', code: 'invalid_value', message }]);
  }
  return cursor.id;
}
