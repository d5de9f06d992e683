/**
 * JSON Schemas of the SSE events as documented in openapi.yaml, derived from zod event unions
 * with zod 4's `z.toJSONSchema` (draft 2020-12, what OpenAPI 3.1+ uses). Each stored/streamed
 * event is the event plus `seq`, the stream's id field and `created_at`: for turns
 * ({@link turnEventComponents}) the runtime events of src/runtime/events.ts plus `turn_id`
 * ({@link StoredTurnEvent}); workflows use {@link sseEventComponents} with `workflow_id`
 * (src/workflows/event-schemas.ts). The ±MAX_SAFE_INTEGER bounds zod adds to `.int()` are dropped.
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

/** `turn.started` → `TurnStarted`, `task.tool_call` → `TaskToolCall` (split at `.` and `_`). */
export function pascalEventType(type: string): string {
  return type.split(/[._]/).map((p) => p[0].toUpperCase() + p.slice(1)).join('');
}

/** `turn.started` → `TurnStartedEvent`. */
export function eventComponentName(type: string): string {
  return `${pascalEventType(type)}Event`;
}

/** How {@link sseEventComponents} names and extends one stream kind's events. */
export interface SseEventComponentOptions {
  /** Component name of an event `type` (e.g. {@link eventComponentName}). */
  componentName: (type: string) => string;
  /** The stream id property added to each event (`turn_id`, `workflow_id`). */
  streamIdField: string;
  /** The log's noun in the `seq` description (`turn`, `workflow`). */
  logName: string;
}

/**
 * Component name → JSON Schema of each event of `variants` (zod objects with a literal `type`)
 * as sent in SSE `data:`: the event plus `seq` (integer ≥ 1), `options.streamIdField` (string)
 * and `created_at` (date-time), all required.
 */
export function sseEventComponents(variants: readonly z.ZodType[], options: SseEventComponentOptions): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const variant of variants) {
    const schema = dropSafeIntBounds(z.toJSONSchema(variant, { target: 'draft-2020-12' })) as Json & {
      properties: Json;
      required: string[];
    };
    const type = (schema.properties.type as { const: string }).const;
    out[options.componentName(type)] = {
      ...schema,
      description: `SSE \`event: ${type}\`; \`data:\` is this object.`,
      properties: {
        ...schema.properties,
        seq: { type: 'integer', minimum: 1, description: `Position in the ${options.logName} log; the SSE \`id:\` is its decimal string.` },
        [options.streamIdField]: { type: 'string' },
        created_at: { type: 'string', format: 'date-time' },
      },
      required: [...new Set([...schema.required, 'seq', options.streamIdField, 'created_at'])],
    };
  }
  return out;
}

/** Component name → JSON Schema of the turn event as sent in SSE `data:`. */
export function turnEventComponents(): Record<string, Json> {
  return sseEventComponents(TurnEvent.options, { componentName: eventComponentName, streamIdField: 'turn_id', logName: 'turn' });
}
