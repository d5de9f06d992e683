/**
 * The `cursor` of every list route (turns, jobs, workflows, schedules and their runs, brain pages):
 * one refusal for a cursor the list never returned, wherever it is checked (a route's query schema
 * or the service that decodes it) — 400 `invalid_request` `cursor is not one this service returned:
 * pass back the next_cursor of the previous page unchanged, or leave cursor out for the first
 * page`, details `[{path: "cursor", code: "invalid_format", message}]` (`message` without the path).
 */
import { z } from 'zod';

/** What is wrong with a foreign cursor and what to send instead (the detail's message; the path is left out). */
export const FOREIGN_CURSOR = 'is not one this service returned: pass back the next_cursor of the previous page unchanged, or leave cursor out for the first page';

/** The 400 message of a foreign cursor: `cursor ` + {@link FOREIGN_CURSOR}. */
export const FOREIGN_CURSOR_MESSAGE = `cursor ${FOREIGN_CURSOR}`;

/** The 400's detail of a foreign cursor: `{path: "cursor", code: "invalid_format", message: FOREIGN_CURSOR}`. */
export function foreignCursorIssue(): { path: 'cursor'; code: 'invalid_format'; message: string } {
  return { path: 'cursor', code: 'invalid_format', message: FOREIGN_CURSOR };
}

/**
 * Query schema of the cursor of a list paged by time-ordered ids (turns, jobs, workflows): the id
 * (a UUID) of the last item of the previous page; anything else is the foreign-cursor issue.
 */
export const IdCursor = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, FOREIGN_CURSOR_MESSAGE);

/**
 * Query schema of an opaque cursor that the service decodes itself (schedules and their runs): 1
 * to 200 characters, else the foreign-cursor issue; the decoder refuses the rest with the same issue.
 */
export const OpaqueCursor = z.string().regex(/^[\s\S]{1,200}$/, FOREIGN_CURSOR_MESSAGE);
