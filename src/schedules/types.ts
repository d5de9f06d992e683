/**
 * Schedules: a saved turn request (input, instructions, tool families, agent id) plus *when* to run
 * it. When a schedule fires, the scheduler starts an ordinary turn through
 * `TurnService.create(request, {origin: {type: 'schedule', schedule_id}, kind: 'scheduled'})`.
 *
 * Shapes here are the public ones (REST bodies, tool `details`); times are ISO 8601 strings in UTC.
 */
import type { ToolFamily } from '../config.js';
import type { CreateTurnInput } from '../turns/turn-service-types.js';
import type { WebhookSpec } from '../webhooks/webhook-spec.js';
import type { RequestApprovals } from '../turns/approvals/policy.js';

/** Units accepted by `when.after` (a week is 7 × 24 h of elapsed time, not calendar-aware). */
export type AfterUnit = 'second' | 'minute' | 'hour' | 'day' | 'week';

/**
 * When a schedule runs: exactly one of three forms.
 * - `{at}`: once, at an ISO 8601 time **with** offset (`Z` or `±hh:mm`), which must be in the future.
 * - `{after: {value, unit}}`: once, `value` units after the schedule was created (or last given this `when`).
 * - `{cron, timezone}`: recurring, a 5-field (or 6-field with seconds) cron expression evaluated by
 *   croner 11 in the IANA `timezone` (never a UTC offset; stored in canonical spelling, see
 *   canonicalTimeZone in ./when.ts).
 */
export type ScheduleWhen =
  | { at: string }
  | { after: { value: number; unit: AfterUnit } }
  | { cron: string; timezone: string };

/**
 * - `active`: will fire at `next_run_at`.
 * - `paused`: keeps its definition, does not fire; resuming a cron schedule continues from the next
 *   slot after the resume time (paused slots are not caught up).
 * - `completed`: a one-shot (`at`/`after`) that has fired; give it a new `when` to use it again.
 */
export const SCHEDULE_STATUSES = ['active', 'paused', 'completed'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/** The turn request a schedule saves (a subset of `POST /v1/turns`; `agent_id` is the schedule's). */
export interface ScheduleRequest {
  input: CreateTurnInput['input'];
  instructions: string | null;
  /** Families the fired turn assembles (a scheduled turn gets read-only schedule tools only). */
  tools: ToolFamily[];
  model: string | null;
  max_steps: number | null;
  metadata: Record<string, unknown> | null;
  /** The turn's `brain: true` (recall/get_page over the agent's brain pages). */
  brain: boolean;
  /** The fired turns' `webhook` (src/webhooks/webhook-spec.ts), or null. Set only through the REST API. */
  webhook: WebhookSpec | null;
  /** The fired turns' `approvals` (README "Tool approvals"), or null (APPROVAL_POLICY). REST only. */
  approvals?: RequestApprovals | null;
}

/** Who created a schedule. */
export type ScheduleCreator = { type: 'api' } | { type: 'turn'; turn_id: string };

/** GET /v1/schedules/{id}. */
export interface Schedule extends ScheduleRequest {
  id: string;
  agent_id: string;
  name: string;
  status: ScheduleStatus;
  when: ScheduleWhen;
  /** Next slot the scheduler will fire (UTC ISO), null when paused or completed. */
  next_run_at: string | null;
  /** Slot of the last fired run (UTC ISO), or null. */
  last_run_at: string | null;
  /** How many runs have been claimed so far (a catch-up run counts once). */
  run_count: number;
  created_at: string;
  updated_at: string;
  created_by: ScheduleCreator;
}

/**
 * - `claimed`: the slot was claimed atomically; the turn is not started yet (a crash here is
 *   recovered at the next start-up, which starts it with the same idempotency key).
 * - `started`: the turn exists (`turn_id`).
 * - `failed`: the turn service refused to start it (`error`).
 */
export type ScheduleRunStatus = 'claimed' | 'started' | 'failed';

/** One firing of a schedule (GET /v1/schedules/{id}/runs). */
export interface ScheduleRun {
  id: string;
  schedule_id: string;
  /** The slot this run stands for (UTC ISO): the due time, not the moment it was claimed. */
  slot_at: string;
  status: ScheduleRunStatus;
  claimed_at: string;
  started_at: string | null;
  turn_id: string | null;
  /** Earlier slots missed while the service was down and folded into this one run (catch-up). */
  missed_slots: number;
  error: { code: string; message: string } | null;
  /** Links to the fired turn, when there is one. */
  links: { turn: string; events: string } | null;
  /** The fired turn's current status when known (from the turn service), else null. */
  turn_status: string | null;
}

/** Body of `POST /v1/schedules` and the input of `schedule_create` (after zod parsing). */
export interface CreateScheduleInput {
  agent_id: string;
  name: string;
  /** Raw; validated by validateWhen (missing → `invalid_when`). */
  when?: unknown;
  input: CreateTurnInput['input'];
  instructions?: string | null;
  tools: ToolFamily[];
  model?: string | null;
  max_steps?: number | null;
  metadata?: Record<string, unknown> | null;
  brain?: boolean;
  webhook?: WebhookSpec | null;
  approvals?: RequestApprovals | null;
  paused?: boolean;
}

/** Options only callers inside the service may set. */
export interface CreateScheduleOptions {
  created_by?: ScheduleCreator;
  /**
   * Idempotency key: a second create with the same key returns the first schedule (`created:
   * false`) when the request is the same, and fails with 409 `idempotency_key_reused` when it differs.
   */
  idempotencyKey?: string;
}

/** `PATCH /v1/schedules/{id}` / `schedule_update.changes`: every field optional. */
export interface UpdateScheduleChanges {
  name?: string;
  when?: unknown;
  input?: CreateTurnInput['input'];
  instructions?: string | null;
  tools?: ToolFamily[];
  model?: string | null;
  max_steps?: number | null;
  metadata?: Record<string, unknown> | null;
  brain?: boolean;
  webhook?: WebhookSpec | null;
  approvals?: RequestApprovals | null;
  paused?: boolean;
}

export interface ListSchedulesQuery {
  agent_id?: string;
  status?: ScheduleStatus;
  /** 1..200, default 50. */
  limit?: number;
  /** Opaque cursor from a previous page's `next_cursor`. */
  cursor?: string;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * The control-plane service behind the `schedule` tools and `/v1/schedules`. Every method throws
 * {@link import('./errors.js').ScheduleError} for bad input (code + HTTP status), never a plain Error.
 */
export interface ScheduleService {
  create(input: CreateScheduleInput, options?: CreateScheduleOptions): Promise<{ schedule: Schedule; created: boolean }>;
  get(id: string): Promise<Schedule | undefined>;
  list(query?: ListSchedulesQuery): Promise<Page<Schedule>>;
  /** @throws ScheduleError `schedule_not_found`, validation codes */
  update(id: string, changes: UpdateScheduleChanges): Promise<Schedule>;
  /** Deletes the schedule and its run history; future slots never fire. @throws `schedule_not_found` */
  delete(id: string): Promise<Schedule>;
  /** Most recent first. @throws `schedule_not_found` */
  listRuns(id: string, query?: { limit?: number; cursor?: string }): Promise<Page<ScheduleRun>>;
}
