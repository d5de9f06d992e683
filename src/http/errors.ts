/**
 * The error envelope used on every non-2xx response: `{error: {code, message, details?}}`.
 * Throw a {@link DomainError} (src/errors.ts) or {@link HttpError} from routes and services; the
 * app's error handler (src/http/error-handler.ts) turns it, zod errors and Fastify's own errors
 * into the envelope.
 */
import { DomainError } from '../errors.js';

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

export const notFound = (what: string, id: string) => new HttpError(404, 'not_found', `${what} ${id} not found`);
export const badRequest = (code: string, message: string, details?: unknown) => new HttpError(400, code, message, details);
export const conflict = (code: string, message: string, details?: unknown) => new HttpError(409, code, message, details);

/** The 413 `body_too_large` envelope for a body over `limit` bytes (the body parser's, and `Expect: 100-continue`'s answer). */
export function bodyTooLarge(limit: number): ErrorEnvelope {
  return envelope('body_too_large', `the request body is larger than ${limit} bytes (BODY_LIMIT_BYTES); send a smaller one`, { limit_bytes: limit });
}

export function envelope(code: string, message: string, details?: unknown): ErrorEnvelope {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}
