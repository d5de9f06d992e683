/**
 * The one idempotency behaviour of every create route (POST /v1/turns, /v1/schedules,
 * /v1/workflows; README.md "Idempotency"):
 * - `Idempotency-Key: <1..255 visible ASCII>` is optional; client keys live in their own `api:`
 *   namespace, so they never meet the keys the service uses itself;
 * - the same key with the same body answers as the first request did (same status, the same
 *   resource in its current state) plus `Idempotent-Replayed: true`; nothing is created twice;
 *   turn bodies are compared with the service's defaults filled in (src/turns/turn-input.ts
 *   `withRequestDefaults`);
 * - the same key with a different body is 409 `idempotency_key_reused` (details name the
 *   existing resource: `turn_id` / `schedule_id` / `workflow_id`).
 * Turns and schedules keep their key on their own row; `IdempotencyKeys` records keys for
 * resources whose store has no such column (workflows), on the service's engine
 * (src/store/idempotency-keys.ts).
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IDEMPOTENCY_KEY_MAX_CHARS, IDEMPOTENCY_KEY_RULE, IdempotencyKeySchema } from '../turns/request-schemas.js';
import { duplicateHeaderIssue, headerFieldCount } from './duplicate-header.js';
import { HttpError } from './errors.js';

/** Response header set on a replayed create. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * The request's client key in the `api:` namespace, or undefined without the header.
 * @throws HttpError 400 `invalid_request` for a bad key: the message names the header, what is
 *   wrong and the rule ({@link IDEMPOTENCY_KEY_RULE}); details `[{path: "headers.idempotency-key",
 *   code: "invalid_format", message}]`. A header given more than once is refused as such (code
 *   `duplicate_header`: `is given 2 times; give it once`), not as the joined value `a, b`.
 */
export function clientIdempotencyKey(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  // Node joins repeats as `a, b`; rawHeaders has each.
  const count = headerFieldCount(request.raw.rawHeaders, 'idempotency-key');
  if (count > 1) {
    const issue = duplicateHeaderIssue('idempotency-key', count);
    throw new HttpError(400, 'invalid_request', `the Idempotency-Key header ${issue.message}`, [issue]);
  }
  const parsed = IdempotencyKeySchema.safeParse(raw);
  if (parsed.success) return `api:${parsed.data}`;
  const what = raw.length === 0 ? 'is empty' : raw.length > IDEMPOTENCY_KEY_MAX_CHARS ? `is ${raw.length} characters long` : 'holds a character outside visible ASCII';
  const message = `${what}: it ${IDEMPOTENCY_KEY_RULE}`;
  throw new HttpError(400, 'invalid_request', `the Idempotency-Key header ${message}; send a short token such as a UUID, or leave the header out`, [
    { path: 'headers.idempotency-key', code: 'invalid_format', message },
  ]);
}

/** Mark `reply` as the replay of an earlier create with the same key. */
export function markReplayed(reply: FastifyReply): FastifyReply {
  return reply.header(REPLAYED_HEADER, 'true');
}

/** Stable hash of a request body (sorted keys), for comparing a replay with the first request. */
export function bodyHash(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sorted) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])])) : v;
  return createHash('sha256').update(JSON.stringify(sorted(value)) ?? '').digest('hex');
}
