/**
 * zod schemas of the turn endpoints' requests (the public contract; openapi.yaml mirrors them and
 * test/e2e/openapi.test.ts checks that it does). Unknown fields are rejected (strict objects).
 */
import { z } from 'zod';
import { TOOL_FAMILIES } from '../src/config.js';

/** `[A-Za-z0-9_-]{1,64}`: owns the computer home, schedules, workflows. */
export const AgentId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'agent_id must match [A-Za-z0-9_-]{1,64}');

export const InputMessage = z.strictObject({
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.string(),
});

/** Max serialized size of `metadata`, bytes. */
export const METADATA_MAX_BYTES = 4096;

export const Metadata = z
  .record(z.string().max(64), z.unknown())
  .refine((m) => Object.keys(m).length <= 32, 'metadata may have at most 32 keys')
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= METADATA_MAX_BYTES, `metadata must serialize to at most ${METADATA_MAX_BYTES} bytes`);

export const ToolFamilies = z
  .array(z.enum(TOOL_FAMILIES))
  .max(TOOL_FAMILIES.length)
  .refine((a) => new Set(a).size === a.length, 'tools must not repeat a family');

export const CreateTurnBody = z.strictObject({
  input: z.union([z.string().min(1, 'input must not be empty'), z.array(InputMessage).min(1, 'input must have at least one message')]),
  instructions: z.string().optional(),
  model: z.string().min(1).max(200).optional(),
  agent_id: AgentId.default('default'),
  tools: ToolFamilies.optional(),
  max_steps: z.number().int().min(1).max(100).optional(),
  previous_turn_id: z.string().min(1).max(100).optional(),
  metadata: Metadata.optional(),
  brain: z.boolean().optional(),
  /** Cancel the turn when the client closes the POST's SSE stream (default false: keep running). */
  cancel_on_disconnect: z.boolean().optional(),
});
export type CreateTurnBody = z.infer<typeof CreateTurnBody>;

export const CreateTurnQuery = z.object({
  wait: z.enum(['true', 'false']).optional(),
});

export const TurnIdParams = z.object({ id: z.string().min(1).max(100) });

export const TURN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

export const ListTurnsQuery = z.object({
  agent_id: AgentId.optional(),
  status: z.enum(TURN_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(100).optional(),
});

export const EventsQuery = z.object({
  after: z.string().optional(),
});

/** Idempotency-Key header: 1..255 visible ASCII characters. */
export const IdempotencyKey = z.string().regex(/^[\x21-\x7e]{1,255}$/, 'Idempotency-Key must be 1..255 visible ASCII characters');

export const PreviewToolsBody = z.strictObject({
  agent_id: AgentId.default('default'),
  tools: ToolFamilies.optional(),
  model: z.string().min(1).max(200).optional(),
  brain: z.boolean().optional(),
});
