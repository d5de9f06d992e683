/**
 * ModelError: the one error type the loop sees from a {@link ModelClient}. It carries the
 * provider's error `code` (e.g. `insufficient_quota`, `rate_limit_exceeded`) or a runtime code:
 * - `http_<status>` when the provider returned an HTTP error without a code;
 * - `connection_error` when the request could not reach the provider;
 * - `stream_interrupted` when the stream ended or broke before a terminal event;
 * - `response_failed` for a `response.failed` event without an error code.
 */
import { APIConnectionError, APIError } from 'openai';

export class ModelError extends Error {
  constructor(
    /** Provider or runtime error code (never empty). */
    public readonly code: string,
    message: string,
    /** HTTP status when the provider answered with one. */
    public readonly status?: number,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

/**
 * Convert anything thrown while talking to the model into a {@link ModelError}.
 * SDK `APIError`s keep their `code` (or become `http_<status>`); connection failures and
 * mid-stream socket errors become `connection_error` / `stream_interrupted`.
 */
export function toModelError(err: unknown): ModelError {
  if (err instanceof ModelError) return err;
  if (err instanceof APIConnectionError) {
    return new ModelError('connection_error', err.message || 'could not connect to the model provider');
  }
  if (err instanceof APIError) {
    const body = err.error as { code?: unknown; type?: unknown; message?: unknown } | undefined;
    const code =
      (typeof err.code === 'string' && err.code) ||
      (typeof body?.code === 'string' && body.code) ||
      (err.status !== undefined ? `http_${err.status}` : undefined) ||
      (typeof err.type === 'string' && err.type) ||
      'model_error';
    const message = (typeof body?.message === 'string' && body.message) || err.message || code;
    return new ModelError(code, message, err.status);
  }
  const e = err as Error;
  // undici reports a reset/closed socket mid-body as TypeError("terminated") or similar.
  return new ModelError('stream_interrupted', `model stream broke: ${e?.message ?? String(err)}`);
}
