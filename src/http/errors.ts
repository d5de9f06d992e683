/**
 * The error envelope used on every non-2xx response: `{error: {code, message, details?}}`.
 * Throw {@link HttpError} from routes and services; the app's error handler (src/http/error-handler.ts)
 * turns it, zod errors and Fastify's own errors into the envelope.
 */

export interface ErrorEnvelope {
  error: { code: string; message: string; details?: unknown };
}

/** An error with an HTTP status and a stable machine-readable `code`. */
export class HttpError extends Error {
  constructor(
    public readonly statusCode: number,
    public readonly code: string,
    message: string,
    public readonly details?: unknown,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const notFound = (what: string, id: string) => new HttpError(404, 'not_found', `${what} ${id} not found`);
export const badRequest = (code: string, message: string, details?: unknown) => new HttpError(400, code, message, details);
export const conflict = (code: string, message: string, details?: unknown) => new HttpError(409, code, message, details);

export function envelope(code: string, message: string, details?: unknown): ErrorEnvelope {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}
