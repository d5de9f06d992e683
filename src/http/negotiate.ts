/**
 * Content negotiation for routes that answer either JSON or an SSE stream (POST /v1/turns), and
 * for routes that answer only SSE ({@link acceptsEventStream}, {@link eventStreamNotAcceptable}). For the first kind the
 * `Accept` header is weighed with `negotiator` (RFC 9110 §12.5.1 — q-values, then the more
 * specific media range, then the client's order), choosing between `application/json` and
 * `text/event-stream`:
 * - `text/event-stream` → SSE; `text/event-stream;q=0, application/json` → JSON;
 * - `application/json;q=0.5, text/event-stream` → SSE; `text/event-stream;q=0.2, application/json` → JSON;
 * - no header or `*\/*` → JSON, the default answer;
 * - an `Accept` that rules out both (`application/xml`, `text/html`, `application/json;q=0`) →
 *   none: the route answers 406 ({@link jsonOrEventStreamNotAcceptable}).
 */
import Negotiator from 'negotiator';
import { HttpError } from './errors.js';
import { escapeUnsafeCharsClipped } from '../unsafe-chars.js';

/** The Accept header(s) for a 406's details: joined, escaped and clipped (escapeUnsafeCharsClipped). */
function acceptForDetails(accept: string | string[] | undefined): string | undefined {
  const header = Array.isArray(accept) ? accept.join(', ') : accept;
  return header === undefined ? undefined : escapeUnsafeCharsClipped(header);
}

/** What a dual route answers with. */
export type ResponseKind = 'json' | 'sse';

const OFFERED = ['application/json', 'text/event-stream'];

/** The kind of answer the `Accept` header `accept` prefers (see the module doc); undefined when it accepts neither. */
export function negotiateResponse(accept: string | string[] | undefined): ResponseKind | undefined {
  const header = Array.isArray(accept) ? accept.join(', ') : accept;
  if (header === undefined || header.trim() === '') return 'json';
  const chosen = new Negotiator({ headers: { accept: header } }).mediaType(OFFERED);
  return chosen === 'text/event-stream' ? 'sse' : chosen === 'application/json' ? 'json' : undefined;
}

/**
 * 406 `not_acceptable` for a route answering JSON or SSE (`route`, say `POST /v1/turns`) whose
 * `accept` rules out both ({@link negotiateResponse} undefined). Details `{accept, served:
 * ["application/json", "text/event-stream"]}`, like {@link eventStreamNotAcceptable}.
 */
export function jsonOrEventStreamNotAcceptable(route: string, accept: string | string[] | undefined): HttpError {
  return new HttpError(
    406,
    'not_acceptable',
    `${route} answers only application/json or text/event-stream; send Accept: application/json (or */*, or no Accept) for JSON, or Accept: text/event-stream for the stream`,
    { accept: acceptForDetails(accept), served: OFFERED },
  );
}

/**
 * Whether the `Accept` header `accept` accepts `text/event-stream` — for routes that serve only
 * SSE (GET /v1/turns|jobs|workflows/{id}/events). No header, `*\/*`, `text/*` or `text/event-stream` with q > 0
 * do; `application/json` alone, or `text/event-stream;q=0`, do not (RFC 9110 §12.5.1: 406).
 */
export function acceptsEventStream(accept: string | string[] | undefined): boolean {
  const header = Array.isArray(accept) ? accept.join(', ') : accept;
  if (header === undefined || header.trim() === '') return true;
  return new Negotiator({ headers: { accept: header } }).mediaType(['text/event-stream']) !== undefined;
}

/**
 * 406 `not_acceptable` for the SSE-only events route of the resource at `self` (say
 * `/v1/jobs/{id}`, whose events route is `${self}/events`) when `accept` rules out
 * `text/event-stream` ({@link acceptsEventStream}). `resource` names it in the message (`job`,
 * `workflow`): the route serves only its events as SSE, there is no JSON listing of them, and its
 * state as JSON is `GET ${self}`. Details `{accept, served: ["text/event-stream"]}`.
 */
export function eventStreamNotAcceptable(self: string, resource: string, accept: string | string[] | undefined): HttpError {
  return new HttpError(
    406,
    'not_acceptable',
    `GET ${self}/events serves only text/event-stream (the ${resource}'s events as SSE); send Accept: text/event-stream, or read the ${resource} as JSON with GET ${self}`,
    { accept: acceptForDetails(accept), served: ['text/event-stream'] },
  );
}
