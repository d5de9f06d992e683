/**
 * Content negotiation for routes that answer either JSON or an SSE stream (POST /v1/turns), and
 * for routes that answer only SSE ({@link acceptsEventStream}). For the first kind the
 * `Accept` header is weighed with `negotiator` (RFC 9110 §12.5.1 — q-values, then the more
 * specific media range, then the client's order), choosing between `application/json` and
 * `text/event-stream`:
 * - `text/event-stream` → SSE; `text/event-stream;q=0, application/json` → JSON;
 * - `application/json;q=0.5, text/event-stream` → SSE; `text/event-stream;q=0.2, application/json` → JSON;
 * - no header, `*\/*`, or nothing either type matches (`text/html`) → JSON, the default answer.
 */
import Negotiator from 'negotiator';

/** What a dual route answers with. */
export type ResponseKind = 'json' | 'sse';

const OFFERED = ['application/json', 'text/event-stream'];

/** The kind of answer the `Accept` header `accept` prefers (see the module doc). */
export function negotiateResponse(accept: string | string[] | undefined): ResponseKind {
  const header = Array.isArray(accept) ? accept.join(', ') : accept;
  if (header === undefined || header.trim() === '') return 'json';
  const chosen = new Negotiator({ headers: { accept: header } }).mediaType(OFFERED);
  return chosen === 'text/event-stream' ? 'sse' : 'json';
}

/**
 * Whether the `Accept` header `accept` accepts `text/event-stream` — for routes that serve only
 * SSE (GET /v1/turns/{id}/events). No header, `*\/*`, `text/*` or `text/event-stream` with q > 0
 * do; `application/json` alone, or `text/event-stream;q=0`, do not (RFC 9110 §12.5.1: 406).
 */
export function acceptsEventStream(accept: string | string[] | undefined): boolean {
  const header = Array.isArray(accept) ? accept.join(', ') : accept;
  if (header === undefined || header.trim() === '') return true;
  return new Negotiator({ headers: { accept: header } }).mediaType(['text/event-stream']) !== undefined;
}
