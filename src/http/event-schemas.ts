/**
 * JSON Schemas of the SSE turn events as documented in openapi.yaml, derived from the zod
 * schemas in src/runtime/events.ts with zod 4's `z.toJSONSchema` (draft 2020-12, what OpenAPI
 * 3.1+ uses). Each stored/streamed event is the runtime event plus `seq`, `turn_id`, `created_at`
 * ({@link StoredTurnEvent}). The ±MAX_SAFE_INTEGER bounds zod adds to `.int()` are dropped.
 */
import { z } from 'zod';
import { TurnEvent } from '../runtime/events.js';

type Json = { [k: string]: unknown };

function dropSafeIntBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropSafeIntBounds);
  if (node && typeof node === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      if ((k === 'maximum' && v === Number.MAX_SAFE_INTEGER) || (k === 'minimum' && v === Number.MIN_SAFE_INTEGER)) continue;
      if (k === '$schema') continue;
      out[k] = dropSafeIntBounds(v);
    }
    return out;
  }
  return node;
}

/** `turn.started` → `TurnStartedEvent`. */
export function eventComponentName(type: string): string {
  return `${type.split(/[._]/).map((p) => p[0].toUpperCase() + p.slice(1)).join('')}Event`;
}

/** Component name → JSON Schema of the event as sent in SSE `data:`. */
export function turnEventComponents(): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const variant of TurnEvent.options) {
    const schema = dropSafeIntBounds(z.toJSONSchema(variant, { target: 'draft-2020-12' })) as Json & {
      properties: Json;
      required: string[];
    };
    const type = (schema.properties.type as { const: string }).const;
    out[eventComponentName(type)] = {
      ...schema,
      description: `SSE \`event: ${type}\`; \`data:\` is this object.`,
      properties: {
        ...schema.properties,
        seq: { type: 'integer', minimum: 1, description: 'Position in the turn log; the SSE `id:` is its decimal string.' },
        turn_id: { type: 'string' },
        created_at: { type: 'string', format: 'date-time' },
      },
      required: [...new Set([...schema.required, 'seq', 'turn_id', 'created_at'])],
    };
  }
  return out;
}
