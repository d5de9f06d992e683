/**
 * JobEvent: what a client sees of a background job on GET /v1/jobs/{id}/events, a discriminated
 * union on `type` (SSE `event:` = `type`, `id:` = the stream's seq as a string; the same rules as
 * turn streams). The stream id is the job id. Besides the job's own moves it carries the job's
 * activity — each finished tool call (its completed label) and each answer text of the job's
 * turns — so one stream follows the job across all its turns; every event names the `turn_id` it
 * came from where there is one (follow that turn at /v1/turns/{turn_id}/events for deltas).
 */
import { z } from 'zod';

const jobError = z.object({ code: z.string(), summary: z.string(), retryable: z.boolean() });

export const JobCreatedEvent = z.object({
  type: z.literal('job.created'),
  job_id: z.string(),
  agent_id: z.string(),
  title: z.string(),
  /** The job this one continues (respawn), or null. */
  respawned_from: z.string().nullable(),
});

export const JobStartedEvent = z.object({
  type: z.literal('job.started'),
  /** 1-based: the first start, then each resume after an answer. */
  attempt: z.number().int(),
  turn_id: z.string(),
  /** Messages this start delivered (sent while the job was queued or waiting). */
  messages: z.number().int(),
});

export const JobMessageEvent = z.object({
  type: z.literal('job.message'),
  message: z.string(),
  /** `queued`: delivered when the job starts; `steering`: applied between rounds of the running turn; `answer`: answers the question and resumes the job. */
  delivery: z.enum(['queued', 'steering', 'answer']),
  /** The steering message's id in the turn (`input.queued`/`input.applied`), null for the other deliveries. */
  message_id: z.string().nullable(),
});

/** A steering message reached the job's model (its turn's `input.applied`). */
export const JobMessageAppliedEvent = z.object({
  type: z.literal('job.message_applied'),
  turn_id: z.string(),
  message_id: z.string(),
});

export const JobActivityEvent = z.object({
  type: z.literal('job.activity'),
  turn_id: z.string(),
  /** `tool`: a finished tool call (`label`, `is_error`); `message`: an answer text of the job (`text`). */
  kind: z.enum(['tool', 'message']),
  label: z.string().nullable(),
  text: z.string().nullable(),
  is_error: z.boolean(),
});

export const JobWaitingEvent = z.object({
  type: z.literal('job.waiting_on_user'),
  turn_id: z.string(),
  question: z.string(),
});

const jobApproval = z.object({
  turn_id: z.string(),
  call_id: z.string(),
  name: z.string(),
  label: z.string().nullable(),
  expires_at: z.string(),
});

/**
 * The job's turn waits for a person to approve or reject calls (decide each at POST
 * /v1/turns/{turn_id}/approvals); sent when the job starts waiting and again whenever the set of
 * undecided calls changes while it waits. The job holds no running slot meanwhile.
 */
export const JobWaitingOnApprovalEvent = z.object({
  type: z.literal('job.waiting_on_approval'),
  turn_id: z.string(),
  /** The calls still undecided, in request order. */
  approvals: z.array(jobApproval),
});

/** Every call was decided (or timed out): the job's waiting turn runs again (status `running`). */
export const JobResumedEvent = z.object({ type: z.literal('job.resumed'), turn_id: z.string() });

export const JobSucceededEvent = z.object({ type: z.literal('job.succeeded'), turn_id: z.string(), output_text: z.string() });
export const JobFailedEvent = z.object({ type: z.literal('job.failed'), turn_id: z.string().nullable(), error: jobError });
export const JobStoppedEvent = z.object({ type: z.literal('job.stopped') });

export const JobEvent = z.discriminatedUnion('type', [
  JobCreatedEvent,
  JobStartedEvent,
  JobMessageEvent,
  JobMessageAppliedEvent,
  JobActivityEvent,
  JobWaitingEvent,
  JobWaitingOnApprovalEvent,
  JobResumedEvent,
  JobSucceededEvent,
  JobFailedEvent,
  JobStoppedEvent,
]);
export type JobEvent = z.infer<typeof JobEvent>;

/** After one of these a job's stream never grows and SSE streams close. */
export const JOB_TERMINAL_EVENT_TYPES = ['job.succeeded', 'job.failed', 'job.stopped'] as const;
export function isJobTerminalEvent(event: { type: string }): boolean {
  return (JOB_TERMINAL_EVENT_TYPES as readonly string[]).includes(event.type);
}
