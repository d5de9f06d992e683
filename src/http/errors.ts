/**
 * The error envelope used on every non-2xx response: `{error: {code, message, details?}}`.
 * Throw a {@link DomainError} (src/errors.ts) or {@link HttpError} from routes and services; the
 * app's error handler (src/http/error-handler.ts) turns it, zod errors and Fastify's own errors
 * into the envelope.
 */
import { DomainError, MAX_LISTED_ISSUES } from '../errors.js';
import { escapeUnsafeChars, quoteForDisplay } from '../unsafe-chars.js';

export { MAX_LISTED_ISSUES };

export interface ErrorEnvelope {
  error: { code: string; message: string; details?: unknown };
}

/**
 * A {@link DomainError} raised by HTTP-facing code, with the status first (kept for the many call
 * sites written as `new HttpError(404, 'not_found', …)`).
 */
export class HttpError extends DomainError {
  constructor(status: number, code: string, message: string, details?: unknown) {
    super(code, message, status, details);
  }
}

/** The collection path that lists each kind of resource {@link notFound} names. */
const LISTS = { turn: '/v1/turns', workflow: '/v1/workflows', job: '/v1/jobs' } as const;

/**
 * What a 404 for an unknown resource that a GET lists says: `shown`, the id (name, slug) as the
 * message writes it — quoted by {@link quoteForDisplay}, so an id from the path with a line break,
 * an escape sequence or a bidi control cannot act on the reader's display; `hint`, the end of the
 * message (`check the id; GET /v1/schedules lists the schedules there are`; `key` names what to
 * check when it is no id, e.g. `name`); and `details` `{resource, id, list}` (`id` with
 * {@link escapeUnsafeChars} applied, `list` that GET, e.g. `GET /v1/schedules`) — the shape of
 * every such 404, whatever its code.
 */
export function notFoundHint(resource: string, id: string, list: string, plural: string, key = 'id'): { shown: string; hint: string; details: { resource: string; id: string; list: string } } {
  return { shown: quoteForDisplay(id), hint: `check the ${key}; GET ${list} lists the ${plural} there are`, details: { resource, id: escapeUnsafeChars(id), list: `GET ${list}` } };
}

/**
 * 404 `not_found` for an unknown turn, workflow or job: the message (`turn "x" not found: …`, the id
 * quoted as {@link notFoundHint} says) says to check the id and which GET lists the existing ones;
 * details `{resource, id, list}` (`list` that GET, e.g. `GET /v1/turns`).
 */
export const notFound = (what: keyof typeof LISTS, id: string) => {
  const { shown, hint, details } = notFoundHint(what, id, LISTS[what], `${what}s`);
  return new HttpError(404, 'not_found', `${what} ${shown} not found: ${hint}`, details);
};
export const badRequest = (code: string, message: string, details?: unknown) => new HttpError(400, code, message, details);
export const conflict = (code: string, message: string, details?: unknown) => new HttpError(409, code, message, details);

/** The end of a message whose list stopped at {@link MAX_LISTED_ISSUES}: how many more there were. */
export function moreIssuesNote(more: number): string {
  return `; and ${more} more problem${more === 1 ? '' : 's'} not listed (details has the first ${MAX_LISTED_ISSUES}): fix these and send again to see the rest`;
}

/**
 * The message and details of a refusal listing `issues`: the first {@link MAX_LISTED_ISSUES}, one
 * `line` each joined by `; ` in the message, then {@link moreIssuesNote} when there were more.
 */
export function listIssues<T>(issues: readonly T[], line: (issue: T) => string): { message: string; details: T[] } {
  const details = issues.slice(0, MAX_LISTED_ISSUES);
  const more = issues.length - details.length;
  return { message: details.map(line).join('; ') + (more > 0 ? moreIssuesNote(more) : ''), details };
}

/**
 * The `{error: {code, message, details?}}` body. A `details` list longer than
 * {@link MAX_LISTED_ISSUES} is cut to that many and the message says how many more there were
 * (a refusal built with {@link listIssues} is already within it).
 */
export function envelope(code: string, message: string, details?: unknown): ErrorEnvelope {
  if (Array.isArray(details) && details.length > MAX_LISTED_ISSUES) {
    return { error: { code, message: message + moreIssuesNote(details.length - MAX_LISTED_ISSUES), details: details.slice(0, MAX_LISTED_ISSUES) } };
  }
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}
