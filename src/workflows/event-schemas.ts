/**
 * JSON Schemas of the SSE workflow events as documented in openapi.yaml, derived from the zod
 * schemas in ./events.ts by the same generator as turn events (src/http/event-schemas.ts,
 * `sseEventComponents`). Each streamed event is the workflow event plus `seq`, `workflow_id` and
 * `created_at` (routes/workflows.ts `workflowEventData`).
 * Print them with `npx tsx scripts/openapi-workflow-events.ts`; test/workflows/openapi.test.ts
 * fails when openapi.yaml differs.
 */
import { pascalEventType, sseEventComponents } from '../http/event-schemas.js';
import { WorkflowEvent } from './events.js';

/** `task.started` → `WorkflowTaskStartedEvent`, `workflow.completed` → `WorkflowCompletedEvent`. */
export function workflowEventComponentName(type: string): string {
  const pascal = pascalEventType(type);
  return `${pascal.startsWith('Workflow') ? pascal : `Workflow${pascal}`}Event`;
}

/** The event types, in union order. */
export const WORKFLOW_EVENT_TYPES: string[] = WorkflowEvent.options.map((o) => o.shape.type.value);

/** Component name → JSON Schema of the event as sent in SSE `data:`. */
export function workflowEventComponents(): Record<string, { [k: string]: unknown }> {
  return sseEventComponents(WorkflowEvent.options, {
    componentName: workflowEventComponentName,
    streamIdField: 'workflow_id',
    logName: 'workflow',
  });
}
