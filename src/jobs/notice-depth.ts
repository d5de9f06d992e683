/**
 * How far a turn is from a person: notices of jobs must not chain on their own. A follow-up turn
 * that tells the owner of a job's outcome (kind `main`, origin `{type: "background_job"}`) may
 * itself start or respawn jobs, whose notices start more follow-up turns… The rule (README
 * "Background jobs"): the notice depth of a turn is 0 for a turn anyone but a job notice started
 * (an API client, a schedule — a person continuing a follow-up resets it), and 1 + the depth of
 * the job's creating turn for a follow-up turn. A job created or respawned by a turn of depth
 * {@link JOB_NOTICE_MAX_DEPTH} or more does not notify (`notify: false`, whatever was asked): it
 * runs, and its outcome waits on the job (list, show, GET /v1/jobs/{id}) for someone to look.
 * So at most JOB_NOTICE_MAX_DEPTH follow-up turns follow one another without a person.
 */
import type { TurnRecord } from '../turns/turn-service-types.js';
import type { JobRecord } from './types.js';

/** Follow-up turns that may follow one another from job notices alone. */
export const JOB_NOTICE_MAX_DEPTH = 2;

export interface NoticeDepthDeps {
  turn(id: string): Promise<Pick<TurnRecord, 'kind' | 'origin'> | undefined>;
  job(id: string): Promise<Pick<JobRecord, 'source_turn_id'> | undefined>;
}

/** The notice depth of turn `turnId`, counted up to `max` (a deeper chain answers `max`). */
export async function noticeDepth(d: NoticeDepthDeps, turnId: string, max = JOB_NOTICE_MAX_DEPTH): Promise<number> {
  let depth = 0;
  let current = turnId;
  while (depth < max) {
    const turn = await d.turn(current);
    if (!turn || turn.kind !== 'main' || turn.origin.type !== 'background_job') return depth;
    depth++;
    const job = await d.job(turn.origin.job_id);
    if (!job?.source_turn_id) return depth;
    current = job.source_turn_id;
  }
  return depth;
}
