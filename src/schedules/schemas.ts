/**
 * zod schemas for schedule requests, shared by the REST routes (routes/schedules.ts) and the
 * schedule tools. They check shapes only; the rules about `when` (exactly one form, cron syntax,
 * time zone, past times, minimum interval) live in ./when.ts so REST and tools give the same
 * error codes and messages.
 */
import { z } from 'zod';
import { TOOL_FAMILIES } from '../config.js';
import { SCHEDULE_STATUSES } from './types.js';

/** `[A-Za-z0-9_-]{1,64}`, as for turns. */
export const AgentIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'agent_id must match [A-Za-z0-9_-]{1,64}');

/** Max serialized size of `metadata`, bytes (same rule as POST /v1/turns, routes/turn-schemas.ts). */
export const METADATA_MAX_BYTES = 4096;

export const MetadataSchema = z
  .record(z.string().max(64), z.unknown())
  .refine((m) => Object.keys(m).length <= 32, 'metadata may have at most 32 keys')
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= METADATA_MAX_BYTES, `metadata must serialize to at most ${METADATA_MAX_BYTES} bytes`);

export const ScheduleNameSchema = z.string().trim().min(1, 'name must not be empty').max(200);

/** A turn `input`: a non-empty string, or a non-empty list of role messages (as POST /v1/turns). */
export const TurnInputSchema = z.union([
  z.string().min(1, 'input must not be empty'),
  z
    .array(
      z
        .object({ role: z.enum(['user', 'assistant', 'system', 'developer']), content: z.string() })
        .strict(),
    )
    .min(1, 'input must have at least one message'),
]);

export const ToolFamiliesSchema = z
  .array(z.enum(TOOL_FAMILIES))
  .max(TOOL_FAMILIES.length)
  .refine((a) => new Set(a).size === a.length, 'tools must not repeat a family');

export const ScheduleStatusSchema = z.enum(SCHEDULE_STATUSES);

/**
 * The `when` object as the model sees it (all keys optional; exactly-one is checked by
 * validateWhen so the error names the rule).
 */
export const WhenShapeSchema = z
  .object({
    at: z.string().optional().describe('ISO 8601 time with offset, e.g. "2026-12-01T09:00:00+01:00" (one-shot)'),
    after: z
      .object({
        value: z.number().int().describe('positive integer'),
        unit: z.enum(['second', 'minute', 'hour', 'day', 'week']),
      })
      .optional()
      .describe('one-shot, this long from now'),
    cron: z.string().optional().describe('recurring: 5-field cron "minute hour day-of-month month day-of-week", e.g. "0 9 * * 1-5"'),
    timezone: z.string().optional().describe('IANA time zone for cron, e.g. "Europe/Berlin" (required with cron)'),
  })
  .describe('exactly one of {at}, {after}, {cron, timezone}');

/** Body of POST /v1/schedules. */
export const CreateScheduleBodySchema = z
  .object({
    name: ScheduleNameSchema,
    /** Checked by validateWhen (codes invalid_when — also when missing —, invalid_at, at_in_past, …). */
    when: z.unknown().optional(),
    input: TurnInputSchema,
    instructions: z.string().nullable().optional(),
    agent_id: AgentIdSchema.optional(),
    tools: ToolFamiliesSchema.optional(),
    model: z.string().min(1).max(200).nullable().optional(),
    max_steps: z.number().int().min(1).max(100).nullable().optional(),
    metadata: MetadataSchema.nullable().optional(),
    brain: z.boolean().optional(),
    paused: z.boolean().optional(),
  })
  .strict();
export type CreateScheduleBody = z.infer<typeof CreateScheduleBodySchema>;

/** Body of PATCH /v1/schedules/{id} (and `schedule_update.changes`): at least one field. */
export const UpdateScheduleBodySchema = z
  .object({
    name: ScheduleNameSchema.optional(),
    when: z.unknown().optional(),
    input: TurnInputSchema.optional(),
    instructions: z.string().nullable().optional(),
    tools: ToolFamiliesSchema.optional(),
    model: z.string().min(1).max(200).nullable().optional(),
    max_steps: z.number().int().min(1).max(100).nullable().optional(),
    metadata: MetadataSchema.nullable().optional(),
    brain: z.boolean().optional(),
    paused: z.boolean().optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field to change');
export type UpdateScheduleBody = z.infer<typeof UpdateScheduleBodySchema>;
