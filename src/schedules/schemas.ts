/**
 * zod schemas for schedule requests, shared by the REST routes (routes/schedules.ts) and the
 * schedule tools. They check shapes only; the rules about `when` (exactly one form, cron syntax,
 * time zone, past times, minimum interval) live in ./when.ts so REST and tools give the same
 * error codes and messages.
 */
import { z } from 'zod';
import { ModelNameSchema } from '../model/model-name.js';
import { AgentIdSchema, MetadataSchema, ToolFamiliesSchema, TurnInputSchema } from '../turns/request-schemas.js';
import { SCHEDULE_STATUSES } from './types.js';
import { requiredInMessages } from '../zod-messages.js';
import { TurnWebhookSpecSchema } from '../webhooks/webhook-spec.js';
import { ApprovalsSchema } from '../turns/approvals/policy.js';
import { nullAsAbsent } from '../zod-null-fields.js';
import { nameCheck } from '../name-check.js';

// The turn request fields are the same as for POST /v1/turns (one definition).
export { AgentIdSchema, METADATA_MAX_BYTES, MetadataSchema, ToolFamiliesSchema, TurnInputSchema } from '../turns/request-schemas.js';

/**
 * A schedule's `name` (REST and the schedule tools): 1..200 characters after trimming, one line of
 * plain text with a visible character (src/name-check.ts).
 */
export const ScheduleNameSchema = z.string().check(nameCheck('name')).trim().min(1, 'name must not be empty').max(200);

export const ScheduleStatusSchema = z.enum(SCHEDULE_STATUSES);

/**
 * The `when` object as the model sees it (all keys optional; exactly-one is checked by
 * validateWhen so the error names the rule).
 */
export const WhenShapeSchema = z
  .object({
    at: z.string().optional().describe('ISO 8601 time with offset, e.g. "2030-01-15T09:00:00+01:00" (one-shot)'),
    after: z
      .object({
        value: z.number().int().describe('positive integer'),
        unit: z.enum(['second', 'minute', 'hour', 'day', 'week']),
      })
      .optional()
      .describe('one-shot, this long from now'),
    cron: z.string().optional().describe('recurring: 5-field cron "minute hour day-of-month month day-of-week", e.g. "0 9 * * 1-5"'),
    timezone: z.string().optional().describe('IANA time zone name for cron, e.g. "Europe/Berlin" or "UTC", not a UTC offset such as "+02:00" (required with cron)'),
  })
  .describe('exactly one of {at}, {after}, {cron, timezone}');

/** The optional fields POST /v1/schedules and PATCH /v1/schedules/{id} share (null clears). */
const SCHEDULE_OPTIONAL_FIELDS = {
  /** Checked by validateWhen (codes invalid_when — also when missing —, invalid_at, at_in_past, …). */
  when: z.unknown().optional(),
  instructions: z.string().nullable().optional(),
  tools: ToolFamiliesSchema.optional(),
  model: ModelNameSchema.nullable().optional(),
  max_steps: z.number().int().min(1).max(500).nullable().optional(),
  metadata: MetadataSchema.nullable().optional(),
  brain: z.boolean().optional(),
  paused: z.boolean().optional(),
};

/**
 * Body of POST /v1/schedules. An optional top-level field sent as `null` is read as left out
 * (src/zod-null-fields.ts), as for POST /v1/turns: `tools`, `agent_id`, `brain`, `paused` too, not
 * only the fields whose `null` PATCH reads as "clear"; `when: null` is a missing `when`
 * (`invalid_when`). Nested fields (`webhook.events`, …) still refuse `null`.
 */
export const CreateScheduleBodySchema = nullAsAbsent(z
  .object({
    name: ScheduleNameSchema,
    input: TurnInputSchema,
    agent_id: AgentIdSchema.optional(),
    ...SCHEDULE_OPTIONAL_FIELDS,
    /** Required: validateWhen answers `invalid_when` when it is missing; messages list `when`, not `when?`. */
    when: requiredInMessages(z.unknown().optional()),
    /** REST only (the schedule tools never set a webhook). */
    webhook: TurnWebhookSpecSchema.nullable().optional(),
    /** The fired turns' `approvals` (README "Tool approvals"); REST only. */
    approvals: ApprovalsSchema.nullable().optional(),
  })
  .strict());
export type CreateScheduleBody = z.infer<typeof CreateScheduleBodySchema>;

/**
 * Body of PATCH /v1/schedules/{id} (and `schedule_update.changes`): at least one field. Here `null`
 * clears a field that may be unset (`instructions`, `model`, `max_steps`, `metadata`, `webhook`,
 * `approvals`); the others (`name`, `input`, `when`, `tools`, `brain`, `paused`) always have a
 * value and refuse `null` — leave them out to keep them.
 */
export const UpdateScheduleBodySchema = z
  .object({
    name: ScheduleNameSchema.optional(),
    input: TurnInputSchema.optional(),
    ...SCHEDULE_OPTIONAL_FIELDS,
    webhook: TurnWebhookSpecSchema.nullable().optional(),
    approvals: ApprovalsSchema.nullable().optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field to change');
export type UpdateScheduleBody = z.infer<typeof UpdateScheduleBodySchema>;
