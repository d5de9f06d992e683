/**
 * The service logger (pino). Secrets never reach the log: the Authorization header, API keys,
 * AUTH_TOKENS and STREAM_TOKEN_SECRET are redacted wherever they appear in a logged object, and
 * token-like query parameters (`token`, `access_token`, `stream_token`) are masked in logged URLs.
 */
import pino, { type Logger } from 'pino';
import type { FastifyRequest } from 'fastify';
import { redactUrl } from './http/stream-token.js';

export type { Logger };

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'OPENAI_API_KEY',
  'AUTH_TOKENS',
  'STREAM_TOKEN_SECRET',
  'WEB_SEARCH_API_KEY',
  'apiKey',
  '*.OPENAI_API_KEY',
  '*.AUTH_TOKENS',
  '*.STREAM_TOKEN_SECRET',
  '*.WEB_SEARCH_API_KEY',
  '*.apiKey',
  '*.authorization',
];


/**
 * Create the logger. `destination` defaults to stdout (tests pass a stream to inspect output).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      serializers: {
        req: (req: FastifyRequest) => ({
          method: req.method,
          url: redactUrl(req.url),
          remoteAddress: req.ip,
        }),
        err: pino.stdSerializers.err,
      },
    },
    destination,
  );
}
