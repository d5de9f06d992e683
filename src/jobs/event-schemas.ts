/**
 * JSON Schemas of the SSE job events as documented in openapi.yaml, derived from the zod schemas
 * in ./events.ts by the same generator as turn and workflow events (src/http/event-schemas.ts).
 * Each streamed event is the job event plus `seq`, `job_id` and `created_at` (routes/jobs.ts
 * `jobEventData`). Print them with `npx tsx scripts/openapi-job-events.ts`;
 * test/jobs/openapi.test.ts fails when openapi.yaml differs.
 */
import { eventComponentName, sseEventComponents } from '../http/event-schemas.js';
import { JobEvent } from './events.js';

/** `job.waiting_on_user` → `JobWaitingOnUserEvent`. */
export const jobEventComponentName = eventComponentName;

/** The event types, in union order. */
export const JOB_EVENT_TYPES: string[] = JobEvent.options.map((o) => o.shape.type.value);

/** Component name → JSON Schema of the event as sent in SSE `data:`. */
export function jobEventComponents(): Record<string, { [k: string]: unknown }> {
  return sseEventComponents(JobEvent.options, { componentName: jobEventComponentName, streamIdField: 'job_id', logName: 'job' });
}
