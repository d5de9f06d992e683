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
import { IdempotencyKeySchema } from '../turns/request-schemas.js';

/** Response header set on a replayed create. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** The request's client key in the `api:` namespace, or undefined without the header. @throws ZodError for a bad key. */
export function clientIdempotencyKey(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  return raw === undefined ? undefined : `api:${IdempotencyKeySchema.parse(raw)}`;
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
