/**
 * The `cursor` of every list route (turns, jobs, workflows, schedules and their runs, brain pages):
 * one refusal for a cursor the list never returned, wherever it is checked (a route's query schema
 * or the service that decodes it) — 400 `invalid_request` `cursor is not one this service returned:
 * pass back the next_cursor of the previous page unchanged, or leave cursor out for the first
 * page`, details `[{path: "cursor", code: "invalid_format", message}]` (`message` without the path).
 * A turns, jobs or workflows cursor edited by hand or mangled on the way gets it too: its checksum
 * fails ({@link encodeQueryCursor}), so it is not taken for a cursor of another list or other filters.
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

/** Bytes of the checksum that ends an {@link encodeQueryCursor} cursor. */
const QUERY_CHECK_BYTES = 4;

/**
 * The lists paged by {@link encodeQueryCursor} cursors, each with the byte that marks its cursors
 * (so a cursor names the list that returned it) and the GET that serves it.
 */
const QUERY_LISTS = {
  turns: { mark: 1, route: 'GET /v1/turns' },
  jobs: { mark: 2, route: 'GET /v1/jobs' },
  workflows: { mark: 3, route: 'GET /v1/workflows' },
} as const;

/** A list paged by {@link encodeQueryCursor} cursors: `turns`, `jobs` or `workflows`. */
export type QueryList = keyof typeof QUERY_LISTS;

/** Bytes of the body of an {@link encodeQueryCursor} cursor: the id (16), the list's mark (1), the query fingerprint (8). */
const QUERY_BODY_BYTES = 16 + 1 + QUERY_TAG_BYTES;

/** Bytes of an {@link encodeQueryCursor} cursor: its body and the checksum of the body. */
const QUERY_CURSOR_BYTES = QUERY_BODY_BYTES + QUERY_CHECK_BYTES;

/** Characters of base64url (unpadded) of `bytes` bytes. */
const base64urlChars = (bytes: number): number => Math.ceil((bytes * 4) / 3);

/** Characters of an {@link encodeQueryCursor} cursor: 39. */
const QUERY_CURSOR_CHARS = base64urlChars(QUERY_CURSOR_BYTES);

/**
 * Characters of a cursor of the previous format (the body without a checksum): 34. Such a cursor is
 * still taken back for the list and filters that returned it ({@link cursorIdFor}); sent to another
 * list it is refused as that list's ({@link otherListCursor}), as a cursor with a checksum is; having
 * no checksum, its use with other filters is refused as foreign.
 */
const UNCHECKED_CURSOR_CHARS = base64urlChars(QUERY_BODY_BYTES);

function queryTag(query: Readonly<Record<string, string | undefined>>): Buffer {
  const canonical = JSON.stringify(Object.keys(query).sort().map((k) => [k, query[k] ?? null]));
  return createHash('sha256').update(canonical).digest().subarray(0, QUERY_TAG_BYTES);
}

/** The checksum of a cursor's body: the first {@link QUERY_CHECK_BYTES} bytes of its SHA-256. */
function bodyCheck(body: Buffer): Buffer {
  return createHash('sha256').update(body).digest().subarray(0, QUERY_CHECK_BYTES);
}

/**
 * The `next_cursor` of a list paged by UUIDs whose page depends on filters (GET /v1/turns, /v1/jobs
 * and /v1/workflows: agent_id, status): the id of the page's last item, the byte marking `list`, a
 * fingerprint of `query` (8 bytes of the SHA-256 of its values, absent ones as null) and a checksum
 * of those 25 bytes (the first 4 bytes of their SHA-256), base64url — 39 characters, opaque to
 * clients. The checksum tells a cursor edited by hand or mangled on the way (it fails) from a
 * cursor of another list or other filters (it holds); it is no secret, so instances share nothing.
 * @param list the list whose page this is; its cursor is refused by the others ({@link cursorIdFor}).
 * @param id a UUID (`xxxxxxxx-xxxx-…`).
 * @param query the filters of the request that makes the page, by name (undefined: not given).
 */
export function encodeQueryCursor(list: QueryList, id: string, query: Readonly<Record<string, string | undefined>>): string {
  const body = Buffer.concat([Buffer.from(id.replaceAll('-', ''), 'hex'), Buffer.of(QUERY_LISTS[list].mark), queryTag(query)]);
  return Buffer.concat([body, bodyCheck(body)]).toString('base64url');
}

/** A decoded {@link QueryCursor}: the item id, the list it came from and its query fingerprint. */
export interface DecodedQueryCursor {
  id: string;
  list: QueryList;
  tag: Buffer;
  /** False for a cursor of the previous format (no checksum): taken back only by the list and filters it names. */
  checked: boolean;
}

const LIST_OF_MARK = new Map<number, QueryList>(Object.entries(QUERY_LISTS).map(([name, { mark }]) => [mark, name as QueryList]));

/** The bytes `cursor` is the canonical unpadded base64url of, or undefined. */
function base64urlBytes(cursor: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const bytes = Buffer.from(cursor, 'base64url');
  return bytes.toString('base64url') === cursor ? bytes : undefined;
}

/**
 * Query schema of a {@link encodeQueryCursor} cursor: decodes to a {@link DecodedQueryCursor};
 * anything that is not the canonical encoding of 16 + 1 + 8 bytes with a known list's mark and
 * their checksum (or, from the previous format, of those 25 bytes alone) is the foreign-cursor
 * issue ({@link FOREIGN_CURSOR_MESSAGE}) — so is a cursor of this service edited by hand (its
 * checksum fails), rather than being read as one of another list or other filters. Check it
 * against the request's list and filters with {@link cursorIdFor} (or {@link queryPaging}).
 */
export const QueryCursor = z.string().transform((cursor, ctx): DecodedQueryCursor => {
  const checked = cursor.length === QUERY_CURSOR_CHARS;
  const bytes = checked || cursor.length === UNCHECKED_CURSOR_CHARS ? base64urlBytes(cursor) : undefined;
  const body = bytes?.subarray(0, QUERY_BODY_BYTES);
  const list = body === undefined ? undefined : LIST_OF_MARK.get(body[16]);
  if (bytes === undefined || body === undefined || list === undefined || (checked && !bytes.subarray(QUERY_BODY_BYTES).equals(bodyCheck(body)))) {
    ctx.addIssue({ code: 'invalid_format', format: 'regex', input: cursor, message: FOREIGN_CURSOR_MESSAGE });
    return z.NEVER;
  }
  const hex = body.subarray(0, 16).toString('hex');
  return { id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`, list, tag: body.subarray(17), checked };
});

/** What is wrong with a cursor another list returned (the detail's message): names that list and says to start without it. */
export function otherListCursor(from: QueryList, list: QueryList): string {
  return `was returned by ${QUERY_LISTS[from].route}, not ${QUERY_LISTS[list].route}: a cursor pages only the list that returned it; leave cursor out to start this list from its first page`;
}

/**
 * The id a decoded {@link QueryCursor} stands for, when `list` returned it for `query` (undefined without a cursor).
 * @throws HttpError 400 `invalid_request`, details `[{path: "cursor", code: "invalid_value", message}]`
 *   (`message` without the path), instead of reading it as a position in another list (often an
 *   empty page): for a cursor another list returned, `cursor was returned by GET /v1/turns, not GET
 *   /v1/workflows: a cursor pages only the list that returned it; leave cursor out to start this
 *   list from its first page` ({@link otherListCursor}); for one returned with other filters,
 *   `cursor was returned for a list with another agent_id or status: pass it back with the same
 *   agent_id and status as the request that returned it, or leave cursor out for the first page`
 *   ({@link otherQueryCursor}). A cursor of the previous format (no checksum) sent to another list
 *   gets the other-list 400 too — its mark names a list whatever else was edited, and the advice,
 *   start this list without it, holds either way; sent to its own list with other filters it is the
 *   foreign-cursor 400 ({@link FOREIGN_CURSOR_MESSAGE}, details `[{path: "cursor", code:
 *   "invalid_format", message}]`): without a checksum, a fingerprint edited by hand cannot be told
 *   from one of other filters.
 */
export function cursorIdFor(list: QueryList, cursor: DecodedQueryCursor | undefined, query: Readonly<Record<string, string | undefined>>): string | undefined {
  if (cursor === undefined) return undefined;
  const sameQuery = cursor.tag.equals(queryTag(query));
  if (!cursor.checked && cursor.list === list && !sameQuery) throw new HttpError(400, 'invalid_request', FOREIGN_CURSOR_MESSAGE, [foreignCursorIssue()]);
  const message = cursor.list !== list ? otherListCursor(cursor.list, list) : !sameQuery ? otherQueryCursor(Object.keys(query)) : undefined;
  if (message !== undefined) throw new HttpError(400, 'invalid_request', `cursor ${message}`, [{ path: 'cursor', code: 'invalid_value', message }]);
  return cursor.id;
}

/** Paging of one request to a {@link QueryList}: where its page starts and how to name where the next one does. */
export interface QueryPaging {
  /** The id of the previous page's last item (the request's cursor), undefined for the first page. */
  after: string | undefined;
  /** The `next_cursor` after the item `lastId` (null when there is no next page: `lastId` null or undefined). */
  next(lastId: string | null | undefined): string | null;
}

/**
 * The paging of a request to GET /v1/turns, /v1/jobs or /v1/workflows, whose filters are
 * `agent_id` and `status`: its cursor checked against `list` and those filters, and the
 * `next_cursor` made for them.
 * @param list the list the request reads.
 * @param query the request's parsed query: the decoded {@link QueryCursor} and the filters.
 * @throws HttpError 400 `invalid_request` for a cursor of another list or of other filters, as {@link cursorIdFor}.
 */
export function queryPaging(list: QueryList, query: { cursor?: DecodedQueryCursor; agent_id?: string; status?: string }): QueryPaging {
  const filters = { agent_id: query.agent_id, status: query.status };
  return {
    after: cursorIdFor(list, query.cursor, filters),
    next: (lastId) => (lastId == null ? null : encodeQueryCursor(list, lastId, filters)),
  };
}
