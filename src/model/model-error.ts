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
