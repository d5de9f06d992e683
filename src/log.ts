/**
 * The service logger (pino). Secrets never reach the log: the Authorization header, API keys,
 * AUTH_TOKENS and STREAM_TOKEN_SECRET are redacted wherever they appear in a logged object, and
 * token-like query parameters (`token`, `access_token`, `stream_token`) are masked in logged URLs.
 */
import pino, { type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
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
  'WEBHOOK_SECRET',
  'WEBHOOK_SECRET_PREVIOUS',
  'METRICS_TOKEN',
  'apiKey',
  '*.OPENAI_API_KEY',
  '*.AUTH_TOKENS',
  '*.STREAM_TOKEN_SECRET',
  '*.WEB_SEARCH_API_KEY',
  '*.WEBHOOK_SECRET',
  '*.WEBHOOK_SECRET_PREVIOUS',
  '*.METRICS_TOKEN',
  '*.apiKey',
  '*.authorization',
];


/** Output format: `json` (one object a line) or `pretty` (pino-pretty's human lines). */
export type LogFormat = 'pretty' | 'json';

/**
 * Create the logger. JSON lines carry ISO 8601 `time` and the level name (`"level":"info"`).
 * `destination` defaults to stdout (tests pass a stream to inspect output). `format` defaults to
 * `pretty` when the destination is stdout and stdout is a terminal, else `json`.
 */
export function createLogger(level: string, destination?: pino.DestinationStream, format?: LogFormat): Logger {
  const chosen = format ?? (destination === undefined && process.stdout.isTTY ? 'pretty' : 'json');
  const out =
    chosen === 'pretty'
      ? pinoPretty({ destination: destination ?? 1, colorize: destination === undefined && process.stdout.isTTY, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true })
      : destination;
  return pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
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
    out,
  );
}
