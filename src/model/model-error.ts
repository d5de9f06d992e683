/**
 * ModelError: the one error type the runtime sees from a {@link ModelPort} (src/model/port.ts).
 * It carries the provider's error `code` (e.g. `insufficient_quota`, `rate_limit_exceeded`) or a
 * runtime code:
 * - `http_<status>` when the provider returned an HTTP error without a code;
 * - `connection_error` when the request could not reach the provider;
 * - `stream_interrupted` when the stream ended or broke before a terminal event;
 * - `response_failed` for a failed response without an error code.
 * Adapters convert their SDK's errors (e.g. src/model/responses-errors.ts).
 */
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
 * The system-level reason of a connection failure, from the first errno-style error in the
 * `cause` chain (fetch wraps it): e.g. `ECONNREFUSED 127.0.0.1:4999`, `ENOTFOUND api.example`.
 * Undefined when the chain holds none.
 */
export function connectionCause(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e; depth++) {
    const c = e as { code?: unknown; address?: unknown; port?: unknown; hostname?: unknown; errors?: unknown[]; cause?: unknown };
    if (typeof c.code === 'string' && /^E[A-Z]+$/.test(c.code)) {
      const host = typeof c.address === 'string' ? c.address : typeof c.hostname === 'string' ? c.hostname : undefined;
      return `${c.code}${host ? ` ${host}${typeof c.port === 'number' ? `:${c.port}` : ''}` : ''}`;
    }
    // Happy eyeballs: an AggregateError of one failure per address.
    e = c.cause ?? (Array.isArray(c.errors) ? c.errors[0] : undefined);
  }
  return undefined;
}

/**
 * The `connection_error` for a request that could not reach the model: names the endpoint (when
 * known) and the cause, e.g. `could not connect to the model endpoint http://127.0.0.1:4999/v1
 * (ECONNREFUSED 127.0.0.1:4999)`.
 */
export function connectionError(err: unknown, baseURL?: string): ModelError {
  const cause = connectionCause(err);
  const where = baseURL ? `the model endpoint ${baseURL}` : 'the model provider';
  const fallback = (err as Error)?.message;
  return new ModelError('connection_error', `could not connect to ${where}${cause ? ` (${cause})` : fallback ? `: ${fallback}` : ''}`);
}
