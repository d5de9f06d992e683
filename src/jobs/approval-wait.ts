/**
 * Following a job's turn into and out of waiting for tool approvals (README "Background jobs"):
 * while the turn is `waiting` with undecided calls the job is `waiting_on_approval` and lists them
 * (`pending_approvals`, event `job.waiting_on_approval`, sent again when the list changes); once
 * the turn runs again (every call decided or timed out) the job is `running` again
 * (`job.resumed`). Each move is a conditional update, so passes on several instances record and
 * stream each change once.
 */
import type { LoggedEvent } from '../store/event-log.js';
import type { TurnStore } from '../store/turn-store.js';
import type { JobEvent } from './events.js';
import type { JobStore } from './job-store.js';
import type { JobTurnOutcome } from './job-turn.js';
import type { JobApproval, JobRecord } from './types.js';

export interface ApprovalWaitDeps {
  store: JobStore;
  turnStore: Pick<TurnStore, 'cancelRequestedAt'>;
  /** The undecided approvals of a turn, in request order; absent: jobs never wait on approvals. */
  pendingApprovals?: (turnId: string) => Promise<Pick<JobApproval, 'call_id' | 'name' | 'label' | 'expires_at'>[]>;
  emit(jobId: string, event: JobEvent): Promise<LoggedEvent<JobEvent>>;
}

const sameApprovals = (a: JobApproval[], b: JobApproval[]) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The job's turn `turnId` is `waiting`: record its undecided calls on the job (running →
 * waiting_on_approval, or an updated list). True when the job just left `running` (a slot is free).
 */
export async function recordApprovalWait(d: ApprovalWaitDeps, job: JobRecord, turnId: string): Promise<boolean> {
  if (!d.pendingApprovals) return false;
  const pending = await d.pendingApprovals(turnId);
  // None left: every call was decided and the turn is being queued again; the next pass sees it run.
  if (pending.length === 0) return false;
  const approvals: JobApproval[] = pending.map((a) => ({ turn_id: turnId, call_id: a.call_id, name: a.name, label: a.label, expires_at: a.expires_at }));
  let moved: JobRecord | undefined;
  if (job.status === 'running') {
    moved = await d.store.transition(job.id, 'waiting_on_approval', { pending_approvals: approvals }, { from: ['running'], attempt: job.attempts });
  } else if (!sameApprovals(job.pending_approvals, approvals)) {
    moved = await d.store.setPendingApprovals(job.id, job.pending_approvals, approvals);
  }
  if (!moved) return false;
  await d.emit(job.id, { type: 'job.waiting_on_approval', turn_id: turnId, approvals });
  return job.status === 'running';
}

/**
 * A `waiting_on_approval` job whose turn is no longer `waiting`: decided, so `running` again
 * (`job.resumed`) — also when the turn already finished since the last pass, so its outcome then
 * applies from `running`. A cancelled turn is not resumed (it is queued again only to end; the job
 * is stopped once it has). Returns the job to apply `outcome` to, or undefined to do nothing now.
 */
export async function resumeAfterDecision(d: ApprovalWaitDeps, job: JobRecord, turnId: string, outcome: JobTurnOutcome | undefined): Promise<JobRecord | undefined> {
  if (outcome?.to === 'stopped') return job;
  if (!outcome && (await d.turnStore.cancelRequestedAt(turnId))) return undefined;
  const resumed = await d.store.transition(job.id, 'running', { pending_approvals: [] }, { from: ['waiting_on_approval'], attempt: job.attempts });
  if (!resumed) return undefined;
  await d.emit(job.id, { type: 'job.resumed', turn_id: turnId });
  return resumed;
}
