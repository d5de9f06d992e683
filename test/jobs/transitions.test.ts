/** The one job transition table: the statuses a job can move between, and what it refuses. */
import { describe, expect, it } from 'vitest';
import { canTransition, JOB_TRANSITIONS, sourcesOf } from '../../src/jobs/transitions.js';
import { JOB_STATUSES, TERMINAL_JOB_STATUSES } from '../../src/jobs/types.js';

describe('job transitions', () => {
  it('lets queued run, running and waiting_on_user alternate, and every live status end', () => {
    expect(canTransition('queued', 'running')).toBe(true);
    expect(canTransition('running', 'waiting_on_user')).toBe(true);
    expect(canTransition('waiting_on_user', 'running')).toBe(true);
    expect(canTransition('waiting_on_user', 'queued')).toBe(true);
    for (const from of ['queued', 'running', 'waiting_on_user', 'waiting_on_approval'] as const) {
      expect(canTransition(from, 'stopped')).toBe(true);
      expect(canTransition(from, 'failed')).toBe(true);
    }
    expect(sourcesOf('succeeded')).toEqual(['running', 'waiting_on_approval']);
  });

  it('lets a running job wait for approvals and go back to running, never through the queue', () => {
    expect(canTransition('running', 'waiting_on_approval')).toBe(true);
    expect(canTransition('waiting_on_approval', 'running')).toBe(true);
    expect(canTransition('waiting_on_approval', 'queued')).toBe(false);
    expect(canTransition('waiting_on_approval', 'waiting_on_user')).toBe(false);
    expect(sourcesOf('waiting_on_approval')).toEqual(['running']);
  });

  it('never moves a terminal job and has no shortcuts', () => {
    for (const t of TERMINAL_JOB_STATUSES) expect(JOB_TRANSITIONS[t]).toEqual([]);
    expect(canTransition('queued', 'succeeded')).toBe(false);
    expect(canTransition('queued', 'waiting_on_user')).toBe(false);
    expect(sourcesOf('running')).toEqual(['queued', 'waiting_on_user', 'waiting_on_approval']);
    expect(Object.keys(JOB_TRANSITIONS).sort()).toEqual([...JOB_STATUSES].sort());
  });
});
