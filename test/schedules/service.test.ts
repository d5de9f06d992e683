import { DomainError } from '../../src/errors.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ScheduleError } from '../../src/schedules/errors.js';
import { createScheduleService } from '../../src/schedules/service.js';
import type { CreateScheduleInput } from '../../src/schedules/types.js';
import { describeEachEngine } from '../support/store-engines.js';
import { scheduleRig, type ScheduleRig } from './support.js';

let rig: ScheduleRig;

const daily = (over: Partial<CreateScheduleInput> = {}): CreateScheduleInput => ({
  agent_id: 'agent-1',
  name: 'daily report',
  when: { cron: '0 9 * * *', timezone: 'Europe/Berlin' },
  input: 'Write the daily report',
  tools: ['todo', 'web'],
  ...over,
});

async function codeOf(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).code;
  }
  throw new Error('expected a ScheduleError');
}

// The schedule store's contract, through the service: run on SQLite and on Postgres.
describeEachEngine('schedule service', (engine) => {
  beforeEach(async () => {
    rig = await scheduleRig('2026-03-27T12:00:00Z', { SCHEDULE_MAX_PER_AGENT: '3' }, engine);
  });
  afterEach(() => rig.close());

  it('persists a schedule with its saved turn request and first slot', async () => {
    const { schedule, created } = await rig.service.create(daily({ instructions: 'Be brief' }));
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
    expect(await rig.service.get(schedule.id)).toEqual(schedule);
  });

  it('returns the first schedule for a repeated idempotency key and refuses the key with another request', async () => {
    const a = await rig.service.create(daily(), { idempotencyKey: 'k1' });
    const b = await rig.service.create(daily(), { idempotencyKey: 'k1' });
    expect(b.created).toBe(false);
    expect(b.schedule.id).toBe(a.schedule.id);
    expect((await rig.service.list({ agent_id: 'agent-1' })).data).toHaveLength(1);
    expect(await codeOf(() => rig.service.create(daily({ input: 'other' }), { idempotencyKey: 'k1' }))).toBe('idempotency_key_reused');
  });

  it('limits active and paused schedules per agent, not completed ones or other agents', async () => {
    await rig.service.create(daily());
    await rig.service.create(daily({ paused: true }));
    const oneShot = (await rig.service.create(daily({ when: { after: { value: 1, unit: 'hour' } } }))).schedule;
    expect(await codeOf(() => rig.service.create(daily()))).toBe('schedule_limit_reached');
    expect((await rig.service.create(daily({ agent_id: 'agent-2' }))).created).toBe(true);
    // the one-shot fires and completes → room for one more
    rig.clock.advance(3_600_000);
    const s = (await rig.store.get(oneShot.id))!;
    await rig.store.claim(s, { runId: '01900000-0000-7000-8000-000000000001', nextRunAt: null, status: 'completed', missedSlots: 0 }, rig.clock.now(), 'i1');
    expect((await rig.service.create(daily())).created).toBe(true);
  });

  it('holds the per-agent limit when two instances create at the same moment', async () => {
    const other = createScheduleService({ store: rig.otherStore(), clock: rig.clock, config: rig.config });
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? rig.service : other).create(daily({ name: `r${i}` }))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    for (const r of results.filter((x) => x.status === 'rejected')) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'schedule_limit_reached' });
    expect((await rig.service.list({ agent_id: 'agent-1' })).data).toHaveLength(3);
  });

  it('pauses (no next run) and resumes a cron schedule at its next slot after the resume time', async () => {
    const { schedule } = await rig.service.create(daily());
    const paused = await rig.service.update(schedule.id, { paused: true });
    expect(paused.status).toBe('paused');
    expect(paused.next_run_at).toBeNull();
    rig.clock.set('2026-04-02T10:00:00Z');
    const resumed = await rig.service.update(schedule.id, { paused: false });
    expect(resumed.status).toBe('active');
    expect(resumed.next_run_at).toBe('2026-04-03T07:00:00.000Z'); // 09:00 CEST
  });

  it('runs a completed one-shot again only when given a new when', async () => {
    const { schedule } = await rig.service.create(daily({ when: { after: { value: 5, unit: 'minute' } } }));
    rig.clock.advance(5 * 60_000);
    const s = (await rig.store.get(schedule.id))!;
    await rig.store.claim(s, { runId: '01900000-0000-7000-8000-000000000002', nextRunAt: null, status: 'completed', missedSlots: 0 }, rig.clock.now(), 'i1');
    expect(await rig.service.get(schedule.id)).toMatchObject({ status: 'completed', next_run_at: null, run_count: 1 });
    expect(await codeOf(() => rig.service.update(schedule.id, { paused: false }))).toBe('schedule_finished');
    expect(await codeOf(() => rig.service.update(schedule.id, { paused: true }))).toBe('schedule_finished');
    expect(await rig.service.get(schedule.id)).toMatchObject({ status: 'completed' });
    const again = await rig.service.update(schedule.id, { when: { at: '2026-03-28T10:00:00+01:00' } });
    expect(again).toMatchObject({ status: 'active', next_run_at: '2026-03-28T09:00:00.000Z', when: { at: '2026-03-28T10:00:00+01:00' } });
  });

  it('updates fields and when, and refuses a bad when with its own code', async () => {
    const { schedule } = await rig.service.create(daily());
    const u = await rig.service.update(schedule.id, { name: 'weekly', when: { cron: '0 9 * * 1', timezone: 'UTC' }, input: 'weekly report', tools: ['todo'] });
    expect(u).toMatchObject({ name: 'weekly', input: 'weekly report', tools: ['todo'], next_run_at: '2026-03-30T09:00:00.000Z' });
    expect(await codeOf(() => rig.service.update(schedule.id, { when: { at: '2020-01-01T00:00:00Z' } }))).toBe('at_in_past');
    expect(await codeOf(() => rig.service.update('nope', { name: 'x' }))).toBe('schedule_not_found');
    expect((await rig.service.get(schedule.id))?.name).toBe('weekly');
  });

  it('deletes a schedule so it is gone from get and list', async () => {
    const { schedule } = await rig.service.create(daily());
    expect((await rig.service.delete(schedule.id)).id).toBe(schedule.id);
    expect(await rig.service.get(schedule.id)).toBeUndefined();
    expect(await codeOf(() => rig.service.delete(schedule.id))).toBe('schedule_not_found');
    expect(await codeOf(() => rig.service.listRuns(schedule.id))).toBe('schedule_not_found');
  });

  it('lists newest first with filters and cursor pagination', async () => {
    const a = (await rig.service.create(daily({ name: 'a' }))).schedule;
    const b = (await rig.service.create(daily({ name: 'b', paused: true }))).schedule;
    const c = (await rig.service.create(daily({ name: 'c' }))).schedule;
    await rig.service.create(daily({ name: 'other', agent_id: 'agent-2' }));
    const p1 = await rig.service.list({ agent_id: 'agent-1', limit: 2 });
    expect(p1.data.map((s) => s.name)).toEqual(['c', 'b']);
    const p2 = await rig.service.list({ agent_id: 'agent-1', limit: 2, cursor: p1.next_cursor! });
    expect(p2.data.map((s) => s.id)).toEqual([a.id]);
    expect(p2.next_cursor).toBeNull();
    expect((await rig.service.list({ status: 'paused' })).data.map((s) => s.id)).toEqual([b.id]);
    expect((await rig.service.list({})).data).toHaveLength(4);
    expect(c.id > b.id).toBe(true);
    expect(await codeOf(() => rig.service.list({ cursor: 'garbage' }))).toBe('invalid_request');
    expect(await codeOf(() => rig.service.list({ limit: 0 }))).toBe('invalid_request');
  });
});
