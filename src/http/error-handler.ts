/**
 * Maps every error to the `{error: {code, message, details?}}` envelope. Bad client input is a
 * 4xx with a clear code, never a 500: zod issues → 400 `invalid_request` (details = issues),
 * malformed JSON → 400 `invalid_json`, body over BODY_LIMIT_BYTES → 413 `body_too_large`,
 * unsupported Content-Type → 415 `unsupported_media_type`. Unknown errors → 500 `internal_error`
 * with a generic message (the real one is logged, never sent).
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { ZodError } from 'zod';
import { envelope, HttpError } from './errors.js';

const FASTIFY_CODES: Record<string, { status: number; code: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'body_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'unsupported_media_type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'invalid_request' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'invalid_json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'invalid_json' },
};

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | Error, request, reply) => {
    if (err instanceof HttpError) {
      return reply.code(err.statusCode).send(envelope(err.code, err.message, err.details));
    }
    if (err instanceof ZodError) {
      return reply.code(400).send(
        envelope('invalid_request', 'request failed validation', err.issues.map((i) => ({
          path: i.path.map(String).join('.'),
          code: i.code,
          message: i.message,
        }))),
      );
    }
    const fe = err as FastifyError;
    const mapped = fe.code ? FASTIFY_CODES[fe.code] : undefined;
    if (mapped) return reply.code(mapped.status).send(envelope(mapped.code, fe.message));
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
    reply.code(404).send(envelope('not_found', `no route ${request.method} ${request.url.split('?')[0]}`));
  });
}
