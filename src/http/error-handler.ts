/**
 * Maps every error to the `{error: {code, message, details?}}` envelope. Bad client input is a
 * 4xx with a clear code, never a 500: a DomainError (src/errors.ts) → its status, code, message and
 * details; zod issues → 400 `invalid_request` (message: one `<path> <what is wrong>` per issue,
 * src/zod-messages.ts, `the request body …` for the body as a whole; details = issues, each path
 * spelled like the message's: `tools[0]`, {@link issuePath}; a union's issue is the innermost
 * field's, {@link innermostIssues}: `input[1].role`, `approvals.todo`),
 * malformed JSON → 400 `invalid_json`, body over BODY_LIMIT_BYTES (or the route's own limit,
 * src/http/body-limit.ts) → 413 `body_too_large`,
 * unsupported or missing Content-Type → 415 `unsupported_media_type` (saying to send
 * `Content-Type: application/json`; details `{content_type, accepted}`), a wrong method on a known path → 405 `method_not_allowed`
 * with `Allow`, an unknown path → 404 `not_found` (both messages show the path cut at 120
 * characters with its length and unsafe characters escaped: {@link pathForDisplay}; the 404's
 * details keep `path` as sent). Unknown errors → 500 `internal_error`
 * with a generic message (the real one is logged, never sent). Errors Fastify and Node raise
 * outside the error handler (routing: {@link frameworkErrorHandler}; HTTP parsing:
 * {@link clientErrorHandler}) get the envelope too.
 */
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { SLUG_MAX_LENGTH } from '../brain/brain-store.js';
import { isDomainError } from '../errors.js';
import { escapeUnsafeChars, escapeUnsafeCharsClipped, quoteForDisplayClipped } from '../unsafe-chars.js';
import { keepHead } from '../runtime/text-cut.js';
import { innermostIssues, issueLine, issuePath } from '../zod-messages.js';
import { bodyLimitOf, bodyTooLarge } from './body-limit.js';
import { envelope, listIssues } from './errors.js';
import { allowedMethods } from './route-registry.js';

/** What to send instead, for a body whose Content-Type the app does not parse (415): the media type received quoted, escaped and clipped (quoteForDisplayClipped). */
function mediaTypeMessage(contentType: string | undefined): string {
  return contentType
    ? `Content-Type ${quoteForDisplayClipped(contentType.split(';')[0].trim())} is not supported: send Content-Type: application/json`
    : 'the request has a body but no Content-Type: send Content-Type: application/json';
}

/** The 415's details: the media type received, escaped and clipped (escapeUnsafeCharsClipped; null without a Content-Type), and the one accepted. */
function mediaTypeDetails(contentType: string | undefined): { content_type: string | null; accepted: string[] } {
  return { content_type: contentType ? escapeUnsafeCharsClipped(contentType.split(';')[0].trim()) : null, accepted: ['application/json'] };
}

const FASTIFY_CODES: Record<string, { status: number; code: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'body_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'invalid_request' },
};

/**
 * One `message` line of a 400 `invalid_request`: `<path> <what is wrong>` ({@link issueLine}); an
 * issue about the whole value (empty path: the routes parse bodies whole, queries and params
 * field by field) reads `the request body <what is wrong>`.
 */
export function requestIssueLine(issue: { path: readonly PropertyKey[]; message: string }): string {
  if (issue.path.length === 0 && /^(is|must|has) /.test(issue.message)) return `the request body ${issue.message}`;
  return issueLine(issue);
}

/**
 * Retry-After (seconds) of a 503 `database_unavailable`: its message says to retry in a few
 * seconds, and the pool reconnects by itself once Postgres answers (seconds, as `shutting_down`'s).
 */
export const DATABASE_RETRY_AFTER_S = 5;

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | Error, request, reply) => {
    if (isDomainError(err)) {
      if (err.code === 'database_unavailable') reply.header('Retry-After', String(DATABASE_RETRY_AFTER_S));
      return reply.code(err.status).send(envelope(err.code, err.message, err.details));
    }
    if (err instanceof ZodError) {
      const listed = listIssues(innermostIssues(err.issues), requestIssueLine);
      return reply.code(400).send(
        envelope('invalid_request', listed.message, listed.details.map((i) => {
          const path = issuePath(i.path);
          // A detail's message leaves its path out (`must be …`), also where a schema wrote it in (`approvals must be …`).
          return { path, code: i.code, message: path && i.message.startsWith(`${path} `) ? i.message.slice(path.length + 1) : i.message };
        })),
      );
    }
    const fe = err as FastifyError;
    const mapped = fe.code ? FASTIFY_CODES[fe.code] : undefined;
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send(envelope('unsupported_media_type', mediaTypeMessage(request.headers['content-type']), mediaTypeDetails(request.headers['content-type'])));
    }
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send(bodyTooLarge(bodyLimitOf(request)));
    }
    if (mapped) return reply.code(mapped.status).send(envelope(mapped.code, fe.message));
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      // Input too deep for recursive code that slipped past the body guard (src/http/json-body.ts).
      request.log.warn({ err }, 'request input too deeply nested');
      return reply.code(400).send(envelope('invalid_request', 'request input is nested too deeply: send fewer levels of nested arrays and objects'));
    }
    if (err instanceof SyntaxError || fe.statusCode === 400) {
      return reply.code(400).send(envelope('invalid_json', `malformed JSON body: ${err.message}`));
    }
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
      return reply.code(fe.statusCode).send(envelope('bad_request', fe.message));
    }
    request.log.error({ err }, 'unhandled error');
    return reply.code(500).send(envelope('internal_error', 'internal server error'));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allow = allowedMethods(app, path);
    if (allow.length > 0) {
      reply
        .code(405)
        .header('Allow', allow.join(', '))
        .send(envelope('method_not_allowed', `${request.method} is not allowed on ${pathForDisplay(path)}: use ${orList(allow)}${methodHint(request.method, path)}`, { allow }));
      return;
    }
    reply.code(404).send(envelope('not_found', `no route ${request.method} ${pathForDisplay(path)}: check the path; GET /openapi.yaml (or the /docs page) lists the routes this service has`, { method: request.method, path: pathForDisplay(path), routes: '/openapi.yaml' }));
  });
}

/**
 * The longest path parameter the router accepts (the app's `routerOptions.maxParamLength`): the
 * longest id or name the API documents, a brain page slug ({@link SLUG_MAX_LENGTH}; agent ids and
 * skill names take 64, turn, job, workflow and schedule ids 36). Every valid one is all unreserved
 * characters, so it reaches the router unescaped at that length; a longer one is 414.
 */
export const MAX_PARAM_LENGTH = SLUG_MAX_LENGTH;

/**
 * Fastify's `frameworkErrors` option: errors raised while routing, before any hook or the error
 * handler runs, sent with the envelope: bad percent-encoding in the path → 400 `invalid_url`
 * (details `{part: "path", path}`), an over-long path parameter → 414 `uri_too_long` (details
 * `{max_param_length}`); each message says what to send instead.
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (err.code === 'FST_ERR_BAD_URL') {
    reply.code(400).send(badEscape('path', request.url.split('?')[0]));
    return;
  }
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.code(414).send(envelope('uri_too_long', `a path parameter is longer than ${MAX_PARAM_LENGTH} characters: no id or name this API takes is that long (the longest, a brain page slug, has at most ${MAX_PARAM_LENGTH}); check the URL`, { max_param_length: MAX_PARAM_LENGTH }));
    return;
  }
  const status = typeof err.statusCode === 'number' && err.statusCode >= 400 ? err.statusCode : 500;
  reply.code(status).send(status >= 500 ? envelope('internal_error', 'internal server error') : envelope('bad_request', err.message));
}

/**
 * The 400 `invalid_url` envelope for a URL whose `part` (`path` or `query`) holds a percent-escape
 * that is not `%` and two hex digits or does not decode to UTF-8 (`%zz`, `%E0%A4%A`); details
 * `{part, <part>: the raw text}`.
 */
export function badEscape(part: 'path' | 'query', raw: string): ReturnType<typeof envelope> {
  return envelope(
    'invalid_url',
    `the URL ${part} is not valid percent-encoded UTF-8: write a literal % as %25 and percent-encode other characters byte by byte from UTF-8 (as encodeURIComponent does)`,
    { part, [part]: raw },
  );
}

/**
 * Fastify's `clientErrorHandler` option: requests Node's HTTP parser rejects before Fastify sees
 * them (malformed Content-Length, invalid method or header, headers too large, request timeout).
 * Writes a `Connection: close` response with the envelope, then closes the socket, as Node does.
 */
export function clientErrorHandler(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  const reason = (err as { reason?: unknown }).reason;
  let body = envelope(
    'malformed_request',
    `malformed HTTP request${err.code ? ` (${err.code}${typeof reason === 'string' ? `: ${reason}` : ''})` : ''}: the HTTP parser refused the request line, a header or the framing (Content-Length, Transfer-Encoding); send a well-formed HTTP/1.1 request`,
    { parser_code: err.code ?? null, ...(typeof reason === 'string' ? { reason } : {}) },
  );
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    const ms = this.server.requestTimeout;
    body = envelope('request_timeout', `the request headers did not arrive within ${ms} ms (REQUEST_TIMEOUT_MS): send the whole request at once, or raise REQUEST_TIMEOUT_MS for slow links`);
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    body = envelope('headers_too_large', `the request line and headers together are larger than ${maxHeaderSize} bytes: send a shorter URL or fewer or shorter headers (a very long URL or large cookies are common causes)`, { max_bytes: maxHeaderSize });
  }
  this.log.debug({ err }, 'client error');
  if (socket.writable) {
    const json = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
    );
  }
  socket.destroy(err);
}

/**
 * What a client sending a method to a path most likely wants, as a clause for a 405's message:
 * DELETE on a turn, a background job or a workflow (none has a DELETE route) points at the route
 * that stops it — `; to stop a background job, POST /v1/jobs/job_1/stop`, ready to copy. A path
 * the message shows cut (over {@link MAX_SHOWN_PATH_CHARS} characters) is written with `{id}`
 * instead, so a long id is not echoed a second time. Empty for any other.
 */
const METHOD_HINTS: { method: string; path: RegExp; hint: (route: string) => string }[] = [
  { method: 'DELETE', path: /^\/v1\/jobs\/[^/]+$/, hint: (r) => `; to stop a background job, POST ${r}/stop` },
  { method: 'DELETE', path: /^\/v1\/turns\/[^/]+$/, hint: (r) => `; to cancel a turn, POST ${r}/cancel` },
  { method: 'DELETE', path: /^\/v1\/workflows\/[^/]+$/, hint: (r) => `; to cancel a workflow, POST ${r}/cancel` },
];

/** The clause of {@link METHOD_HINTS} for `method` on `path`, or ''. */
function methodHint(method: string, path: string): string {
  const h = METHOD_HINTS.find((m) => method === m.method && m.path.test(path));
  if (!h) return '';
  return h.hint(path.length <= MAX_SHOWN_PATH_CHARS ? escapeUnsafeChars(path) : path.slice(0, path.lastIndexOf('/') + 1) + '{id}');
}

/** The most characters of a request path a 404's or 405's message shows. */
const MAX_SHOWN_PATH_CHARS = 120;

/**
 * A request's path for a message: as sent, characters src/unsafe-chars.ts lists written as
 * `\uXXXX`; one over {@link MAX_SHOWN_PATH_CHARS} characters is shown by its start and its length
 * — `/v1/jobs/aaaa…… (3009 characters)` — so a message stays short whatever was sent.
 */
function pathForDisplay(path: string): string {
  if (path.length <= MAX_SHOWN_PATH_CHARS) return escapeUnsafeChars(path);
  let head = keepHead(path, MAX_SHOWN_PATH_CHARS);
  // Not in the middle of a percent-escape (`%E2` cut to `%E`): the cut goes before it.
  const pct = head.lastIndexOf('%');
  if (pct >= head.length - 2 && pct >= 0) head = head.slice(0, pct);
  return `${escapeUnsafeChars(head)}… (${path.length} characters)`;
}

/** `items` as an English list with "or": `GET`, `GET or HEAD`, `GET, HEAD or POST`. */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}
