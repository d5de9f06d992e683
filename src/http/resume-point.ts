/**
 * The resume point of an SSE stream request (README "SSE events"): the `Last-Event-ID` header,
 * else `?after=`, else 0 (from the first event). Each refusal names the one that was read and
 * says what to send instead.
 */
import type { FastifyRequest } from 'fastify';
import { duplicateHeaderIssue, headerFieldCount } from './duplicate-header.js';
import { badRequest, HttpError } from './errors.js';
import { quoteForDisplayClipped } from '../unsafe-chars.js';

/** The most characters of a value that is not an id a refusal shows. */
const MAX_SHOWN_CHARS = 40;

/**
 * A header value as its sender wrote it, for display: Node reads header bytes as latin1 (`é` sent
 * as UTF-8 arrives as `Ã©`), so bytes that are valid UTF-8 are decoded as UTF-8; others stay as read.
 */
function headerText(value: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'latin1'));
  } catch {
    return value;
  }
}

/**
 * Read the resume point of a request: `Last-Event-ID` header (wins) or `?after=`.
 * @returns the seq to send events after (0 without either).
 * @throws HttpError 400 `invalid_request` (details `[{path: "headers.last-event-id", code:
 *   "duplicate_header", message}]`) when the header is given more than once; 400
 *   `invalid_last_event_id` when the value read is not a non-negative integer (`Last-Event-ID "x"
 *   is not an event id: send …`; `after "x" …` for the query; the value quoted by
 *   quoteForDisplayClipped, at most 40 characters, a header's UTF-8 bytes decoded) or is beyond `lastSeq`, an id this
 *   stream never produced (`… is beyond the last stored event (4): resume after at most 4, or …`);
 *   both with details `{path, last_event_id}`: which was read (`headers.last-event-id` or `after`,
 *   spelled as in the other 400s) and the last stored id, where the client can resume.
 */
export function resumePoint(request: FastifyRequest, lastSeq: number): number {
  const header = request.headers['last-event-id'];
  const query = (request.query as Record<string, unknown> | undefined)?.after;
  const fromHeader = typeof header === 'string' && header !== '';
  // Node joins repeats with ", "; rawHeaders has each.
  const count = fromHeader ? headerFieldCount(request.raw.rawHeaders, 'last-event-id') : 1;
  if (count > 1) {
    const issue = duplicateHeaderIssue('last-event-id', count);
    throw new HttpError(400, 'invalid_request', `the Last-Event-ID header ${issue.message}`, [issue]);
  }
  const raw = fromHeader ? header : typeof query === 'string' ? query : undefined;
  if (raw === undefined) return 0;
  const name = fromHeader ? 'Last-Event-ID' : 'after';
  const restart = fromHeader ? 'send no Last-Event-ID' : 'leave out after';
  const details = { path: fromHeader ? 'headers.last-event-id' : 'after', last_event_id: lastSeq };
  if (!/^\d+$/.test(raw.trim())) {
    const given = quoteForDisplayClipped(fromHeader ? headerText(raw) : raw, MAX_SHOWN_CHARS);
    throw badRequest('invalid_last_event_id', `${name} ${given} is not an event id: send the id of the last event received (a non-negative integer), or ${restart} to start from the first event`, details);
  }
  const trimmed = raw.trim();
  const shown = trimmed.length > MAX_SHOWN_CHARS ? `${trimmed.slice(0, MAX_SHOWN_CHARS)}…` : trimmed;
  if (trimmed.length > 15 || Number(trimmed) > lastSeq) {
    throw badRequest('invalid_last_event_id', `${name} ${shown} is beyond the last stored event (${lastSeq}): resume after an id of at most ${lastSeq}, or ${restart} to start from the first event`, details);
  }
  return Number(trimmed);
}
