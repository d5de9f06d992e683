/**
 * JSON Schemas of the SSE workflow events as documented in openapi.yaml, derived from the zod
 * schemas in ./events.ts with `z.toJSONSchema` (draft 2020-12). Each streamed event is the
 * workflow event plus `seq`, `workflow_id` and `created_at` (routes/workflows.ts `workflowEventData`).
 * Print them with `npx tsx scripts/openapi-workflow-events.ts`; test/workflows/openapi.test.ts
 * fails when openapi.yaml differs.
 */
import { z } from 'zod';
import { WorkflowEvent } from './events.js';

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

/** `task.started` → `WorkflowTaskStartedEvent`, `workflow.completed` → `WorkflowCompletedEvent`. */
export function workflowEventComponentName(type: string): string {
  const pascal = type.split(/[._]/).map((p) => p[0].toUpperCase() + p.slice(1)).join('');
  return `${pascal.startsWith('Workflow') ? pascal : `Workflow${pascal}`}Event`;
}

/** The event types, in union order. */
export const WORKFLOW_EVENT_TYPES: string[] = WorkflowEvent.options.map((o) => o.shape.type.value);

/** Component name → JSON Schema of the event as sent in SSE `data:`. */
export function workflowEventComponents(): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const variant of WorkflowEvent.options) {
    const schema = dropSafeIntBounds(z.toJSONSchema(variant, { target: 'draft-2020-12' })) as Json & {
      properties: Json;
      required: string[];
    };
    const type = (schema.properties.type as { const: string }).const;
    out[workflowEventComponentName(type)] = {
      ...schema,
      description: `SSE \`event: ${type}\`; \`data:\` is this object.`,
      properties: {
        ...schema.properties,
        seq: { type: 'integer', minimum: 1, description: 'Position in the workflow log; the SSE `id:` is its decimal string.' },
        workflow_id: { type: 'string' },
        created_at: { type: 'string', format: 'date-time' },
      },
      required: [...new Set([...schema.required, 'seq', 'workflow_id', 'created_at'])],
    };
  }
  return out;
}
