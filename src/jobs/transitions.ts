/**
 * The one table of job status moves. Every status change is a conditional update in the job store
 * from exactly the statuses this table allows ({@link sourcesOf}; `start` is the queued /
 * waiting_on_user → running row), so no path can move a job where the table does not.
 *
 * queued → running (a slot is free) · running ↔ waiting_on_user (the job asked; the answer resumes
 * it) · waiting_on_user → queued (answered while the agent has no free slot) · any live status →
 * succeeded | failed | stopped · terminal statuses never change.
 */
import type { JobStatus } from './types.js';

export const JOB_TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  queued: ['running', 'failed', 'stopped'],
  running: ['waiting_on_user', 'succeeded', 'failed', 'stopped'],
  waiting_on_user: ['running', 'queued', 'failed', 'stopped'],
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
