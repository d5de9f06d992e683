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
 * `tools` as the set it is: sorted, each family once. The assembler builds a turn's tool set in its
 * own fixed family order (src/assembly/assemble.ts), so the order a request lists families in
 * changes nothing the turn does; an Idempotency-Key compares them as a set.
 */
export function familySet<T extends string>(tools: readonly T[]): T[] {
  return [...new Set(tools)].sort();
}

function withFamilySet(input: CreateTurnInput): CreateTurnInput {
  return input.tools === undefined ? input : { ...input, tools: familySet(input.tools) };
}

/**
 * The `request_hash` stored with a turn's Idempotency-Key: {@link requestHash} of `scoped(request
 * with defaults filled in)`, of `scoped(request as sent)` — both with `tools` as a set
 * ({@link familySet}) — and of `scoped(request exactly as sent)`, joined by a space (duplicates
 * left out). A retry matches when any of its hashes is among the stored ones (see
 * {@link sameRequest}): spelling out a default replays, listing the families in another order
 * replays, the very same body replays after a restart with other defaults, and so does the very
 * same body under a key stored before `tools` compared as a set (its order as sent).
 */
export function idempotencyHashes(input: CreateTurnInput, model: string, d: RequestDefaults, scope: object): string[] {
  const set = withFamilySet(input);
  const hashes = [
    requestHash({ ...scope, input: withFamilySet(withRequestDefaults(input, model, d)) }),
    requestHash({ ...scope, input: set }),
    requestHash({ ...scope, input }),
  ];
  return [...new Set(hashes)];
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
