/**
 * zod schemas of the turn endpoints' requests (the public contract; openapi.yaml mirrors them and
 * test/e2e/openapi.test.ts checks that it does). Unknown fields are rejected (strict objects).
 */
import { emptyBody } from './empty-body.js';
import { z } from 'zod';
import { ModelNameSchema } from '../src/model/model-name.js';
import { MODEL_APIS } from '../src/config.js';
import { namePatternString } from '../src/name-pattern.js';
import { SKILL_NAME_RULE } from '../src/skills/skill-format.js';
import { TurnWebhookSpecSchema } from '../src/webhooks/webhook-spec.js';
import { ApprovalsSchema } from '../src/turns/approvals/policy.js';
import { MULTITASK_STRATEGIES } from '../src/turns/turn-service-types.js';
import {
  AgentIdSchema as AgentId,
  IdempotencyKeySchema,
  MetadataSchema as Metadata,
  ToolFamiliesSchema as ToolFamilies,
  TurnInputSchema,
} from '../src/turns/request-schemas.js';
import { queryInt } from '../src/http/query-int.js';
import { QueryCursor } from '../src/list-cursor.js';
import { nullAsAbsent } from '../src/zod-null-fields.js';

// Shared with schedules (src/turns/request-schemas.ts).
export { AgentId, Metadata, ToolFamilies };
export { InputMessageSchema as InputMessage, METADATA_MAX_BYTES } from '../src/turns/request-schemas.js';

/** A list of skill names (each at most once). */
export const SkillNames = z
  .array(namePatternString(SKILL_NAME_RULE))
  .max(64)
  .refine((a) => new Set(a).size === a.length, 'skills must not repeat a name');

/** Why `multitask_strategy` without `previous_turn_id` is refused (400 `invalid_request`, path `multitask_strategy`). */
export const MULTITASK_WITHOUT_PREVIOUS = 'must come with previous_turn_id: it says what to do while the continued turn is still active; send previous_turn_id too, or leave multitask_strategy out';

/**
 * POST /v1/turns body. `multitask_strategy` is only accepted together with `previous_turn_id`
 * ({@link MULTITASK_WITHOUT_PREVIOUS}): it decides what happens to that turn while it is active.
 * An optional field sent as `null` is read as left out (src/zod-null-fields.ts).
 */
export const CreateTurnBody = nullAsAbsent(z.strictObject({
  input: TurnInputSchema,
  instructions: z.string().optional(),
  model: ModelNameSchema.optional(),
  /** Wire protocol for this turn's model requests (default: MODEL_API). */
  model_api: z.enum(MODEL_APIS).optional(),
  agent_id: AgentId.default('default'),
  tools: ToolFamilies.optional(),
  max_steps: z.number().int().min(1).max(500).optional(),
  previous_turn_id: z.string().min(1).max(100).optional(),
  /** Double-texting: what to do when `previous_turn_id` is still active (src/turns/turn-service-types.ts); only with `previous_turn_id`. */
  multitask_strategy: z.enum(MULTITASK_STRATEGIES).optional(),
  metadata: Metadata.optional(),
  brain: z.boolean().optional(),
  /** Skills enabled for this turn instead of the agent's list (names from GET /v1/skills). */
  skills: SkillNames.optional(),
  /** Where to POST the turn's terminal event (Standard Webhooks, signed; src/webhooks/). */
  webhook: TurnWebhookSpecSchema.optional(),
  /** Which tools wait for the user's approval (README "Tool approvals"); unset: APPROVAL_POLICY. */
  approvals: ApprovalsSchema.optional(),
  /** Cancel the turn when the client closes the POST's SSE stream (default false: keep running). */
  cancel_on_disconnect: z.boolean().optional(),
}).check((ctx) => {
  // A strategy says what to do with an active previous turn; without one it would be dropped unseen.
  if (ctx.value.multitask_strategy !== undefined && ctx.value.previous_turn_id === undefined) {
    ctx.issues.push({ code: 'custom', path: ['multitask_strategy'], message: MULTITASK_WITHOUT_PREVIOUS, input: ctx.value.multitask_strategy });
  }
}));
export type CreateTurnBody = z.infer<typeof CreateTurnBody>;

export const CreateTurnQuery = z.object({
  wait: z.enum(['true', 'false']).optional(),
});

export const TurnIdParams = z.object({ id: z.string().min(1).max(100) });

export const TURN_STATUSES = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled'] as const;

export const ListTurnsQuery = z.object({
  agent_id: AgentId.optional(),
  status: z.enum(TURN_STATUSES).optional(),
  limit: queryInt(1, 100, 20),
  /**
   * The `next_cursor` of the previous page (src/list-cursor.ts `encodeQueryCursor`: the last turn's
   * id, the list's mark and a fingerprint of agent_id and status); checked against this
   * list and request by the route (`queryPaging`).
   */
  cursor: QueryCursor.optional(),
});

/**
 * POST /v1/turns/{id}/cancel: no body, or `{}` (routes/empty-body.ts, shared with job stop and
 * workflow cancel). 400 `invalid_request`: `has unknown field "reason": cancel takes no fields; …`.
 */
export const CancelTurnBody = emptyBody('cancel');

/** GET /v1/turns/{id}/events: `after` (read by src/http/resume-point.ts), `stream_token` (checked by src/http/stream-token.ts). */
export const EventsQuery = z.object({
  after: z.string().optional(),
  stream_token: z.string().optional(),
});

/** Idempotency-Key header: 1..255 visible ASCII characters. */
export const IdempotencyKey = IdempotencyKeySchema;

/** POST /v1/tools/preview body; an optional field sent as `null` is read as left out. */
export const PreviewToolsBody = nullAsAbsent(z.strictObject({
  agent_id: AgentId.default('default'),
  tools: ToolFamilies.optional(),
  model: ModelNameSchema.optional(),
  /** The wire protocol whose `tools` form `definitions` takes (default: MODEL_API), as `model_api` on POST /v1/turns. */
  model_api: z.enum(MODEL_APIS).optional(),
  brain: z.boolean().optional(),
  /** Skills the turn would get instead of the agent's enabled list (as on POST /v1/turns). */
  skills: SkillNames.optional(),
}));
