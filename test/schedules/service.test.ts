import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScheduleError } from '../../src/schedules/errors.js';
import type { CreateScheduleInput } from '../../src/schedules/types.js';
import { scheduleRig, type ScheduleRig } from './support.js';

let rig: ScheduleRig;
beforeEach(() => {
  rig = scheduleRig('2026-03-27T12:00:00Z', { SCHEDULE_MAX_PER_AGENT: '3' });
});
afterEach(() => rig.close());

const daily = (over: Partial<CreateScheduleInput> = {}): CreateScheduleInput => ({
  agent_id: 'agent-1',
  name: 'daily report',
  when: { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
  input: 'Write the daily report',
  tools: ['todo', 'web'],
  ...over,
});

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ScheduleError);
    return (err as ScheduleError).code;
  }
  throw new Error('expected a ScheduleError');
}

describe('schedule service', () => {
  it('persists a schedule with its saved turn request and first slot', () => {
    const { schedule, created } = rig.service.create(daily({ instructions: 'Be brief' }));
    expect(created).toBe(true);
    expect(schedule).toMatchObject({
      agent_id: 'agent-1',
      name: 'daily report',
      status: 'active',
      when: { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
      input: 'Write the daily report',
      instructions: 'Be brief',
      tools: ['todo', 'web'],
      next_run_at: '2026-03-28T08:00:00.000Z',
      last_run_at: null,
      run_count: 0,
      created_by: { type: 'api' },
      created_at: '2026-03-27T12:00:00.000Z',
    });
    expect(rig.service.get(schedule.id)).toEqual(schedule);
  });

  it('returns the first schedule for a repeated idempotency key and refuses the key with another request', () => {
    const a = rig.service.create(daily(), { idempotencyKey: 'k1' });
    const b = rig.service.create(daily(), { idempotencyKey: 'k1' });
    expect(b.created).toBe(false);
    expect(b.schedule.id).toBe(a.schedule.id);
    expect(rig.service.list({ agent_id: 'agent-1' }).data).toHaveLength(1);
    expect(codeOf(() => rig.service.create(daily({ input: 'other' }), { idempotencyKey: 'k1' }))).toBe('idempotency_conflict');
  });

  it('limits active and paused schedules per agent, not completed ones or other agents', () => {
    rig.service.create(daily());
    rig.service.create(daily({ paused: true }));
    const oneShot = rig.service.create(daily({ when: { after: { value: 1, unit: 'hour' } } })).schedule;
    expect(codeOf(() => rig.service.create(daily()))).toBe('schedule_limit_reached');
    expect(rig.service.create(daily({ agent_id: 'agent-2' })).created).toBe(true);
    // the one-shot fires and completes → room for one more
    rig.clock.advance(3_600_000);
    const s = rig.store.get(oneShot.id)!;
    rig.store.claim(s, { runId: '01900000-0000-7000-8000-000000000001', nextRunAt: null, status: 'completed', missedSlots: 0 }, rig.clock.now(), 'i1');
    expect(rig.service.create(daily()).created).toBe(true);
  });

  it('pauses (no next run) and resumes a cron schedule at its next slot after the resume time', () => {
    const { schedule } = rig.service.create(daily());
    const paused = rig.service.update(schedule.id, { paused: true });
    expect(paused.status).toBe('paused');
    expect(paused.next_run_at).toBeNull();
    rig.clock.set('2026-04-02T10:00:00Z');
    const resumed = rig.service.update(schedule.id, { paused: false });
    expect(resumed.status).toBe('active');
    expect(resumed.next_run_at).toBe('2026-04-03T07:00:00.000Z'); // 09:00 CEST
  });

  it('runs a completed one-shot again only when given a new when', () => {
    const { schedule } = rig.service.create(daily({ when: { after: { value: 5, unit: 'minute' } } }));
    rig.clock.advance(5 * 60_000);
    const s = rig.store.get(schedule.id)!;
    rig.store.claim(s, { runId: '01900000-0000-7000-8000-000000000002', nextRunAt: null, status: 'completed', missedSlots: 0 }, rig.clock.now(), 'i1');
    expect(rig.service.get(schedule.id)).toMatchObject({ status: 'completed', next_run_at: null, run_count: 1 });
    expect(codeOf(() => rig.service.update(schedule.id, { paused: false }))).toBe('invalid_request');
    const again = rig.service.update(schedule.id, { when: { at: '2026-03-28T10:00:00+01:00' } });
    expect(again).toMatchObject({ status: 'active', next_run_at: '2026-03-28T09:00:00.000Z', when: { at: '2026-03-28T10:00:00+01:00' } });
  });

  it('updates fields and when, and refuses a bad when with its own code', () => {
    const { schedule } = rig.service.create(daily());
    const u = rig.service.update(schedule.id, { name: 'weekly', when: { cron: '0 9 * * 1', timezone: 'UTC' }, input: 'weekly report', tools: ['todo'] });
    expect(u).toMatchObject({ name: 'weekly', input: 'weekly report', tools: ['todo'], next_run_at: '2026-03-30T09:00:00.000Z' });
    expect(codeOf(() => rig.service.update(schedule.id, { when: { at: '2020-01-01T00:00:00Z' } }))).toBe('at_in_past');
    expect(codeOf(() => rig.service.update('nope', { name: 'x' }))).toBe('schedule_not_found');
    expect(rig.service.get(schedule.id)?.name).toBe('weekly');
  });

  it('deletes a schedule so it is gone from get and list', () => {
    const { schedule } = rig.service.create(daily());
    expect(rig.service.delete(schedule.id).id).toBe(schedule.id);
    expect(rig.service.get(schedule.id)).toBeUndefined();
    expect(codeOf(() => rig.service.delete(schedule.id))).toBe('schedule_not_found');
    expect(codeOf(() => rig.service.listRuns(schedule.id))).toBe('schedule_not_found');
  });

  it('lists newest first with filters and cursor pagination', () => {
    const a = rig.service.create(daily({ name: 'a' })).schedule;
    const b = rig.service.create(daily({ name: 'b', paused: true })).schedule;
    const c = rig.service.create(daily({ name: 'c' })).schedule;
    rig.service.create(daily({ name: 'other', agent_id: 'agent-2' }));
    const p1 = rig.service.list({ agent_id: 'agent-1', limit: 2 });
    expect(p1.data.map((s) => s.name)).toEqual(['c', 'b']);
    const p2 = rig.service.list({ agent_id: 'agent-1', limit: 2, cursor: p1.next_cursor! });
    expect(p2.data.map((s) => s.id)).toEqual([a.id]);
    expect(p2.next_cursor).toBeNull();
    expect(rig.service.list({ status: 'paused' }).data.map((s) => s.id)).toEqual([b.id]);
    expect(rig.service.list({}).data).toHaveLength(4);
    expect(c.id > b.id).toBe(true);
    expect(codeOf(() => rig.service.list({ cursor: 'garbage' }))).toBe('invalid_request');
    expect(codeOf(() => rig.service.list({ limit: 0 }))).toBe('invalid_request');
  });
});
