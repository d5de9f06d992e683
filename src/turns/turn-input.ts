/**
 * Pure helpers for turn requests: canonical hashing (idempotency) and conversion of the request
 * `input` into Responses API input items.
 */
import { createHash } from 'node:crypto';
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

/**
 * The request's `input` as Responses API input items (EasyInputMessage `{type:'message', role,
 * content}`); a plain string is one user message.
 */
export function inputItems(input: CreateTurnInput['input']): TranscriptItem[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return input.map((m) => ({ type: 'message', role: m.role, content: m.content }) as TranscriptItem);
}
