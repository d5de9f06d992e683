/**
 * The one table of job status moves. Every status change is a conditional update in the job store
 * from exactly the statuses this table allows ({@link sourcesOf}; `start` is the queued /
 * waiting_on_user → running row), so no path can move a job where the table does not.
 *
 * queued → running (a slot is free) · running ↔ waiting_on_user (the job asked; the answer resumes
 * it) · waiting_on_user → queued (answered while the agent has no free slot) · running ↔
 * waiting_on_approval (its turn waits for a person's decision on a call; the decision resumes that
 * same turn) · any live status → failed | stopped · running | waiting_on_approval → succeeded ·
 * terminal statuses never change.
 *
 * Waiting for an approval is its own status, not `waiting_on_user`: an answer to a question starts a
 * new turn of the job (through the per-agent limit, so `waiting_on_user → queued` exists), while a
 * decision continues the job's waiting turn itself (the turn service resumes it at once, so the job
 * goes straight back to `running`; it never queues), and a message to it is steering for that turn,
 * not an answer. Both waiting statuses hold no running slot.
 */
import type { JobStatus } from './types.js';

export const JOB_TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  queued: ['running', 'failed', 'stopped'],
  running: ['waiting_on_user', 'waiting_on_approval', 'succeeded', 'failed', 'stopped'],
  waiting_on_user: ['running', 'queued', 'failed', 'stopped'],
  // → succeeded | failed: the decided turn finished before a pass saw it run again.
  waiting_on_approval: ['running', 'succeeded', 'failed', 'stopped'],
  succeeded: [],
  failed: [],
  stopped: [],
};

/** True when the table allows a job in `from` to move to `to`. */
export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return JOB_TRANSITIONS[from].includes(to);
}

/** The statuses a job may move to `to` from. */
export function sourcesOf(to: JobStatus): JobStatus[] {
  return (Object.keys(JOB_TRANSITIONS) as JobStatus[]).filter((from) => canTransition(from, to));
}
