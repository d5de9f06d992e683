/**
 * The schedule store port (tables `schedules`, `schedule_runs`; times in integer ms since the
 * epoch) and the row shapes both engines share. Implementations: ./sqlite-store.ts (default) and
 * src/store/postgres/pg-schedule-store.ts; both pass the contract suites in test/schedules/.
 *
 * Exactly-once firing: {@link ScheduleStore.claim} advances a due schedule with
 * `UPDATE … WHERE id = ? AND status = 'active' AND next_run_at = ?` and records the run as `claimed`
 * (with its slot and a snapshot of the turn request) in the same transaction. Only the instance
 * whose UPDATE changed the row owns the run, so several instances sharing the database fire each
 * slot once; a run left `claimed` by a crash is found again by {@link ScheduleStore.claimedRuns}.
 *
 * Read-modify-writes are single port calls ({@link ScheduleStore.create}, {@link ScheduleStore.modify},
 * {@link ScheduleStore.remove}) that the engine runs atomically — a schedule edit never races the
 * scheduler's claim, and the per-agent limit holds across instances.
 */
import type {
  Schedule,
  ScheduleCreator,
  ScheduleRequest,
  ScheduleRun,
  ScheduleRunStatus,
  ScheduleStatus,
  ScheduleWhen,
} from './types.js';

/** A schedule as stored (times in ms). */
export interface StoredSchedule {
  id: string;
  agent_id: string;
  name: string;
  status: ScheduleStatus;
  when: ScheduleWhen;
  request: ScheduleRequest;
  next_run_at: number | null;
  last_run_at: number | null;
  run_count: number;
  created_at: number;
  updated_at: number;
  created_by: ScheduleCreator;
  idempotency_key: string | null;
  request_hash: string | null;
}

/** A run as stored, with the turn request snapshot taken when it was claimed. */
export interface StoredRun {
  id: string;
  schedule_id: string;
  agent_id: string;
  slot_at: number;
  status: ScheduleRunStatus;
  claimed_at: number;
  claimed_by: string;
  started_at: number | null;
  turn_id: string | null;
  missed_slots: number;
  error: { code: string; message: string } | null;
  request: ScheduleRequest;
}

/** What the scheduler decides for one due schedule when it claims it. */
export interface ClaimPlan {
  runId: string;
  /** New `next_run_at` (null for a fired one-shot). */
  nextRunAt: number | null;
  /** New status (`completed` for a fired one-shot). */
  status: ScheduleStatus;
  missedSlots: number;
}

/** A `schedules` row (`SELECT *`): the stored schedule's plain fields, JSON columns as text. */
export type ScheduleRow = Omit<StoredSchedule, 'when' | 'request' | 'created_by'> & {
  when_json: string;
  request_json: string;
  created_by: string;
};

/** A `schedule_runs` row (`SELECT *`): the stored run's plain fields, JSON columns as text. */
export type RunRow = Omit<StoredRun, 'error' | 'request'> & { error_json: string | null; request_json: string };

export function toStored(row: ScheduleRow): StoredSchedule {
  const { when_json, request_json, created_by, ...plain } = row;
  return {
    ...plain,
    when: JSON.parse(when_json) as ScheduleWhen,
    request: JSON.parse(request_json) as ScheduleRequest,
    created_by: JSON.parse(created_by) as ScheduleCreator,
  };
}

export function toStoredRun(row: RunRow): StoredRun {
  const { error_json, request_json, ...plain } = row;
  return {
    ...plain,
    error: error_json === null ? null : (JSON.parse(error_json) as StoredRun['error']),
    request: JSON.parse(request_json) as ScheduleRequest,
  };
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Public shape of a stored schedule. */
export function toSchedule(s: StoredSchedule): Schedule {
  return {
    id: s.id,
    agent_id: s.agent_id,
    name: s.name,
    status: s.status,
    when: s.when,
    ...s.request,
    webhook: s.request.webhook ?? null, // absent in schedules stored before webhooks existed
    approvals: s.request.approvals ?? null, // absent in schedules stored before approvals existed
    next_run_at: iso(s.next_run_at),
    last_run_at: iso(s.last_run_at),
    run_count: s.run_count,
    created_at: new Date(s.created_at).toISOString(),
    updated_at: new Date(s.updated_at).toISOString(),
    created_by: s.created_by,
  };
}

/** Public shape of a stored run (`turn_status` filled in by the service when it can). */
export function toScheduleRun(r: StoredRun, turnStatus: string | null = null): ScheduleRun {
  return {
    id: r.id,
    schedule_id: r.schedule_id,
    slot_at: new Date(r.slot_at).toISOString(),
    status: r.status,
    claimed_at: new Date(r.claimed_at).toISOString(),
    started_at: iso(r.started_at),
    turn_id: r.turn_id,
    missed_slots: r.missed_slots,
    error: r.error,
    links: r.turn_id ? { turn: `/v1/turns/${r.turn_id}`, events: `/v1/turns/${r.turn_id}/events` } : null,
    turn_status: turnStatus,
  };
}

/** Outcome of {@link ScheduleStore.create}. */
export type CreateOutcome =
  | { kind: 'created' }
  /** The idempotency key is taken (by `existing`); nothing was written. */
  | { kind: 'exists'; existing: StoredSchedule }
  /** The agent already has `live` active + paused schedules (≥ the limit); nothing was written. */
  | { kind: 'limit'; live: number };

/** Promise-returning so a networked database can implement it. */
export interface ScheduleStore {
  /**
   * Insert `s` atomically unless its idempotency key is taken or its agent already has `maxLive`
   * active + paused schedules (counted under the same lock as the insert, across instances).
   */
  create(s: StoredSchedule, maxLive: number): Promise<CreateOutcome>;
  /**
   * Read-modify-write one schedule atomically: `change` gets a copy of the current row and the
   * number of live (active + paused) schedules of its agent, and returns the row to store
   * (name, status, when, request, next_run_at, updated_at are written). `change` is synchronous; a
   * throw aborts without writing and is rethrown. @returns the stored row, undefined when absent.
   */
  modify(id: string, change: (current: StoredSchedule, liveCount: number) => StoredSchedule): Promise<StoredSchedule | undefined>;
  /** Delete a schedule and its runs. @returns the deleted schedule, undefined when absent. */
  remove(id: string): Promise<StoredSchedule | undefined>;
  get(id: string): Promise<StoredSchedule | undefined>;
  getByIdempotencyKey(key: string): Promise<StoredSchedule | undefined>;
  /** Schedules of `agentId` that are not completed (what SCHEDULE_MAX_PER_AGENT limits). */
  countLive(agentId: string): Promise<number>;
  /** Newest first (ids are UUIDv7, so id order is creation order); `before` is an exclusive id cursor. */
  list(q: { agent_id?: string; status?: ScheduleStatus; before?: string; limit: number }): Promise<StoredSchedule[]>;
  /** Active schedules whose `next_run_at` is at or before `now` (ms), earliest first. */
  due(now: number, limit?: number): Promise<StoredSchedule[]>;
  /**
   * Claim the slot `s.next_run_at` of `s` for `instanceId`: advance the schedule per `plan` and
   * record the run as `claimed`, atomically. Returns the run, or undefined when another instance
   * (or an edit) changed the schedule since `s` was read — then nothing is written.
   */
  claim(s: StoredSchedule, plan: ClaimPlan, now: number, instanceId: string): Promise<StoredRun | undefined>;
  /** Runs left `claimed` (claimed, turn not recorded as started): crash recovery. Oldest first. */
  claimedRuns(): Promise<StoredRun[]>;
  /** Take over a run left `claimed` by `previousOwner` (atomic; false when someone else took it or it moved on). */
  reclaim(runId: string, previousOwner: string, now: number, instanceId: string): Promise<boolean>;
  /** A claimed run's turn started. */
  markStarted(runId: string, turnId: string, now: number): Promise<void>;
  /** A claimed run's turn could not start. */
  markFailed(runId: string, error: { code: string; message: string }): Promise<void>;
  getRun(id: string): Promise<StoredRun | undefined>;
  /** Runs of one schedule, newest first; `before` is an exclusive run-id cursor. */
  listRuns(scheduleId: string, q: { before?: string; limit: number }): Promise<StoredRun[]>;
}

/** The run a successful claim records. */
export function claimedRun(s: StoredSchedule, plan: ClaimPlan, now: number, instanceId: string, request: ScheduleRequest): StoredRun {
  return {
    id: plan.runId,
    schedule_id: s.id,
    agent_id: s.agent_id,
    slot_at: s.next_run_at!,
    status: 'claimed',
    claimed_at: now,
    claimed_by: instanceId,
    started_at: null,
    turn_id: null,
    missed_slots: plan.missedSlots,
    error: null,
    request,
  };
}

/** A deep copy (what {@link ScheduleStore.modify} hands to its callback). */
export const cloneSchedule = (s: StoredSchedule): StoredSchedule => structuredClone(s);
