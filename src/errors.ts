/**
 * DomainError: the one base of every refusal a service, store or route raises on purpose — a
 * stable machine-readable `code`, the HTTP `status` the REST layer answers with, a human
 * `message` that says what to do, and optional `details`. The HTTP error handler
 * (src/http/error-handler.ts) is the only place that maps it to the response envelope
 * `{error: {code, message, details?}}`; tools show `message` to the model as `Error: …`.
 */
export class DomainError extends Error {
  constructor(
    /** Stable code, e.g. `invalid_cron`, `model_required` (documented in openapi.yaml). */
    readonly code: string,
    message: string,
    /** HTTP status for the envelope (4xx for bad input or state, 503 for a missing dependency). */
    readonly status: number = 400,
    /** Extra structured facts (offending fields, the existing resource's id…). */
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The most issues a refusal lists (in `details`, and one line each in `message`): a request with
 * 1 500 unknown query parameters gets the first 20 and a count of the rest, not a 479 KB answer.
 * The envelope (src/http/errors.ts) cuts any longer `details` list to this.
 */
export const MAX_LISTED_ISSUES = 20;

/** True for any {@link DomainError} (also across module copies that share the class). */
export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError;
}

/**
 * 409 `idempotency_key_reused`: an Idempotency-Key was used before with a different request body
 * (the one idempotency refusal of every create route; README.md "Idempotency").
 * @param resource `turn`, `schedule` or `workflow`; details are `{<resource>_id: existingId}`.
 */
export function idempotencyKeyReused(resource: string, existingId: string): DomainError {
  return new DomainError(
    'idempotency_key_reused',
    `this Idempotency-Key was already used with a different request body (${resource} ${existingId}); send a new key for a new request`,
    409,
    { [`${resource}_id`]: existingId },
  );
}
