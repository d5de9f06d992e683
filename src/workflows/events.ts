/**
 * WorkflowEvent: what a client sees of a workflow on GET /v1/workflows/{id}/events, as a
 * discriminated union on `type` (SSE `event:` = `type`, `id:` = the stream's seq as a string, the
 * same rules as turn streams). Task turns keep their own turn event streams; these events name the
 * `turn_id` so a client can follow one.
 */
import { z } from 'zod';

const counts = z.object({
  queued: z.number().int(),
  running: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
});

export const WorkflowStartedEvent = z.object({
  type: z.literal('workflow.started'),
  workflow_id: z.string(),
  agent_id: z.string(),
  title: z.string(),
  concurrency: z.number().int(),
  tasks: z.array(z.object({ index: z.number().int(), label: z.string() })),
});

export const TaskStartedEvent = z.object({
  type: z.literal('task.started'),
  task_index: z.number().int(),
  label: z.string(),
  /** 1-based attempt number. */
  attempt: z.number().int(),
  turn_id: z.string(),
});

export const TaskSucceededEvent = z.object({
  type: z.literal('task.succeeded'),
  task_index: z.number().int(),
  turn_id: z.string(),
  /** The accepted result, exactly as submitted. */
  result: z.unknown(),
});

export const TaskFailedEvent = z.object({
  type: z.literal('task.failed'),
  task_index: z.number().int(),
  turn_id: z.string().nullable(),
  attempt: z.number().int(),
  error: z.object({ code: z.string(), message: z.string() }),
  /** True when another attempt follows (the task is queued again). */
  will_retry: z.boolean(),
});

export const TaskCancelledEvent = z.object({
  type: z.literal('task.cancelled'),
  task_index: z.number().int(),
});

const terminal = {
  counts,
  summary: z.string(),
};

export const WorkflowCompletedEvent = z.object({ type: z.literal('workflow.completed'), ...terminal });
export const WorkflowFailedEvent = z.object({ type: z.literal('workflow.failed'), ...terminal });
export const WorkflowCancelledEvent = z.object({ type: z.literal('workflow.cancelled'), ...terminal });

export const WorkflowEvent = z.discriminatedUnion('type', [
  WorkflowStartedEvent,
  TaskStartedEvent,
  TaskSucceededEvent,
  TaskFailedEvent,
  TaskCancelledEvent,
  WorkflowCompletedEvent,
  WorkflowFailedEvent,
  WorkflowCancelledEvent,
]);
export type WorkflowEvent = z.infer<typeof WorkflowEvent>;
export type TaskCounts = z.infer<typeof counts>;

/** After one of these a workflow's stream never grows and SSE streams close. */
export const WORKFLOW_TERMINAL_EVENT_TYPES = ['workflow.completed', 'workflow.failed', 'workflow.cancelled'] as const;
export function isWorkflowTerminalEvent(event: { type: string }): boolean {
  return (WORKFLOW_TERMINAL_EVENT_TYPES as readonly string[]).includes(event.type);
}
