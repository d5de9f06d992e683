/**
 * Pure helpers for turn requests: canonical hashing (idempotency) and conversion of the request
 * `input` into Responses API input items.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../config.js';
import type { TranscriptItem } from '../runtime/turn-types.js';
import type { CreateTurnInput } from './turn-service-types.js';

/** JSON with object keys sorted, so logically equal bodies hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** sha256 hex of the canonical JSON of a request (what an Idempotency-Key is bound to). */
export function requestHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** The service defaults {@link withRequestDefaults} fills in. */
export type RequestDefaults = Pick<Config, 'MODEL_API' | 'DEFAULT_TOOLS' | 'MAX_STEPS'>;

/**
 * A turn request with the service's defaults filled in where it leaves a field out — the turn it
 * asks for, which is what an Idempotency-Key is bound to (README.md "Idempotency"): `model` (the
 * resolved model, MODEL when unset), `model_api` (MODEL_API), `tools` (DEFAULT_TOOLS), `max_steps`
 * (MAX_STEPS), `brain` (false), `multitask_strategy` (`reject`). `agent_id` has its default from
 * the request schema already. Fields whose default depends on other state (`skills`: the agent's
 * list; `approvals`: APPROVAL_POLICY) are compared as sent.
 */
export function withRequestDefaults(input: CreateTurnInput, model: string, d: RequestDefaults): CreateTurnInput {
  return {
    ...input,
    model,
    model_api: input.model_api ?? d.MODEL_API,
    tools: input.tools ?? d.DEFAULT_TOOLS,
    max_steps: input.max_steps ?? d.MAX_STEPS,
    brain: input.brain ?? false,
    multitask_strategy: input.multitask_strategy ?? 'reject',
  };
}

/**
 * The `request_hash` stored with a turn's Idempotency-Key: {@link requestHash} of `scoped(request
 * with defaults filled in)` and of `scoped(request as sent)`, joined by a space. A retry matches
 * when either of its two hashes is among the stored ones (see {@link sameRequest}): spelling out a
 * default replays, and so does the very same body after a restart with other defaults.
 */
export function idempotencyHashes(input: CreateTurnInput, model: string, d: RequestDefaults, scope: object): [withDefaults: string, asSent: string] {
  return [requestHash({ ...scope, input: withRequestDefaults(input, model, d) }), requestHash({ ...scope, input })];
}

/**
 * True when a stored `request_hash` (hashes joined by spaces; one hash for keys stored before
 * defaults were filled in) shares a hash with `hashes` ({@link idempotencyHashes}).
 */
export function sameRequest(stored: string | null, hashes: readonly string[]): boolean {
  return stored !== null && stored.split(' ').some((h) => hashes.includes(h));
}

/**
 * The request's `input` as Responses API input items (EasyInputMessage `{type:'message', role,
 * content}`); a plain string is one user message.
 */
export function inputItems(input: CreateTurnInput['input']): TranscriptItem[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return input.map((m) => ({ type: 'message', role: m.role, content: m.content }) as TranscriptItem);
}
