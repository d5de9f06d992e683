/**
 * The turn of one start of a job: the task verbatim as the first user message (title never sent),
 * pending messages after it, BACKGROUND_JOB_MAX_STEPS, the job tool families; later starts and
 * respawns continue the previous turn with only the new messages; and how a finished job turn maps
 * onto the job's next status (clarify → waiting_on_user).
 */
import { describe, expect, it } from 'vitest';
import { JOB_TURN_FAMILIES, jobErrorOf, jobTurnOutcome, jobTurnRequest } from '../../src/jobs/job-turn.js';
import type { JobRecord } from '../../src/jobs/types.js';
import type { TurnRecord } from '../../src/turns/turn-service-types.js';

const job = { id: 'j1', agent_id: 'a', title: 'Secret title', task: 'Do the task', model: 'm', pending_messages: ['also this'] } as JobRecord;

describe('job turns', () => {
  it('send the task verbatim first, then pending messages, with the job step budget and tool families', () => {
    const req = jobTurnRequest(job, 200, undefined);
    expect(req.input).toEqual([{ role: 'user', content: 'Do the task' }, { role: 'user', content: 'also this' }]);
    expect(req).toMatchObject({ agent_id: 'a', model: 'm', max_steps: 200, tools: JOB_TURN_FAMILIES, metadata: { job_id: 'j1' } });
    expect(JSON.stringify(req)).not.toContain('Secret title');
    expect(JOB_TURN_FAMILIES).toEqual(['todo', 'computer', 'web', 'clarify']);
    expect(req.previous_turn_id).toBeUndefined();
  });

  it('continue the previous turn with only the new messages on a later start', () => {
    expect(jobTurnRequest(job, 50, 't0')).toMatchObject({ input: [{ role: 'user', content: 'also this' }], previous_turn_id: 't0', max_steps: 50 });
  });

  it('map a finished turn to the next job status', () => {
    const turn = (over: Partial<TurnRecord>) => ({ status: 'completed', stop_reason: 'stop', output_text: 'done', error: null, ...over }) as TurnRecord;
    expect(jobTurnOutcome(turn({}))).toEqual({ to: 'succeeded', output_text: 'done' });
    expect(jobTurnOutcome(turn({ stop_reason: 'clarify', output_text: 'Which one?' }))).toEqual({ to: 'waiting_on_user', question: 'Which one?' });
    expect(jobTurnOutcome(turn({ status: 'failed', error: { code: 'rate_limit_exceeded', message: 'slow down' } }))).toEqual({ to: 'failed', error: { code: 'rate_limit_exceeded', summary: 'slow down', retryable: true } });
    expect(jobTurnOutcome(turn({ status: 'cancelled' }))).toEqual({ to: 'stopped' });
    expect(jobTurnOutcome(turn({ status: 'running' }))).toBeUndefined();
    expect(jobTurnOutcome(turn({ status: 'waiting' }))).toBeUndefined();
    expect(jobErrorOf({ code: 'content_filter', message: 'x' }).retryable).toBe(false);
    expect(jobErrorOf({ code: 'http_503', message: 'x' }).retryable).toBe(true);
  });
});
