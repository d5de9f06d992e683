/**
 * zod schemas of the turn request fields that every way of asking for a turn shares: POST
 * /v1/turns (routes/turn-schemas.ts), schedules (src/schedules/schemas.ts, REST and tools), and
 * the Idempotency-Key header of POST /v1/turns and POST /v1/schedules. One definition, so the
 * same value is accepted or refused with the same message everywhere; openapi.yaml mirrors them.
 */
import { z } from 'zod';
import { TOOL_FAMILIES } from '../config.js';

/** `[A-Za-z0-9_-]{1,64}`: owns the computer home, schedules, workflows, brain pages. */
export const AgentIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'agent_id must match [A-Za-z0-9_-]{1,64}');

/** One message of a list `input`: `{role: user|assistant|system|developer, content}`, nothing else. */
export const InputMessageSchema = z.strictObject({
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.string(),
});

/** A turn `input`: a non-empty string, or a non-empty list of role messages. */
export const TurnInputSchema = z.union([
  z.string().min(1, 'input must not be empty'),
  z.array(InputMessageSchema).min(1, 'input must have at least one message'),
]);

/** Max serialized size of `metadata`, bytes. */
export const METADATA_MAX_BYTES = 4096;

/** `metadata`: a JSON object of at most 32 keys (each ≤ 64 chars), ≤ {@link METADATA_MAX_BYTES} serialized. */
export const MetadataSchema = z
  .record(z.string().max(64), z.unknown())
  .refine((m) => Object.keys(m).length <= 32, 'metadata may have at most 32 keys')
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= METADATA_MAX_BYTES, `metadata must serialize to at most ${METADATA_MAX_BYTES} bytes`);

/** `tools`: tool families (src/config.ts TOOL_FAMILIES), each at most once. */
export const ToolFamiliesSchema = z
  .array(z.enum(TOOL_FAMILIES))
  .max(TOOL_FAMILIES.length)
  .refine((a) => new Set(a).size === a.length, 'tools must not repeat a family');

/** Idempotency-Key header: 1..255 visible ASCII characters. */
export const IdempotencyKeySchema = z.string().regex(/^[\x21-\x7e]{1,255}$/, 'Idempotency-Key must be 1..255 visible ASCII characters');
