import { afterEach, beforeEach, expect, it } from 'vitest';
import { Scheduler } from '../../src/schedules/scheduler.js';
import type { CreateScheduleInput } from '../../src/schedules/types.js';
import { describeEachEngine } from '../support/store-engines.js';
import { scheduleRig, type ScheduleRig } from './support.js';

let rig: ScheduleRig;

const scheduler = (instanceId?: string) => new Scheduler({ store: rig.store, turns: rig.turns, clock: rig.clock, tickMs: 1000, instanceId });

async function create(over: Partial<CreateScheduleInput> = {}) {
  return (await rig.service.create({
    agent_id: 'agent-1',
    name: 'report',
    when: { cron: '0 * * * *', timezone: 'UTC' },
    input: 'Write the report',
    tools: ['todo', 'schedule'],
    ...over,
  })).schedule;
}

/** Tick every `stepMs` from now until `untilIso` (inclusive); returns the fired slots in ISO. */
async function runUntil(s: Scheduler, untilIso: string, stepMs = 60_000): Promise<{ schedule_id: string; slot: string }[]> {
  const fired: { schedule_id: string; slot: string }[] = [];
  const until = Date.parse(untilIso);
  while (rig.clock.now() <= until) {
    const r = await s.tick();
    fired.push(...r.started.map((x) => ({ schedule_id: x.schedule_id, slot: new Date(x.slot_at).toISOString() })));
    rig.clock.advance(stepMs);
  }
  return fired;
}

// The schedule store's claim contract, through the scheduler: run on SQLite and on Postgres.
describeEachEngine('scheduler', (engine) => {
  beforeEach(async () => {
    rig = await scheduleRig('2026-03-27T12:00:00Z', {}, engine);
  });
  afterEach(() => rig.close());

  it('fires a one-shot exactly once as a scheduled turn with the schedule as origin', async () => {
    const s = await create({ name: 'once', when: { after: { value: 30, unit: 'minute' } }, instructions: 'Be brief' });
    const fired = await runUntil(scheduler(), '2026-03-27T14:00:00Z');
    expect(fired).toEqual([{ schedule_id: s.id, slot: '2026-03-27T12:30:00.000Z' }]);
    expect(rig.turns.created).toHaveLength(1);
    const call = rig.turns.created[0];
    expect(call.input).toEqual({ input: 'Write the report', agent_id: 'agent-1', tools: ['todo', 'schedule'], instructions: 'Be brief' });
    expect(call.options).toMatchObject({ origin: { type: 'schedule', schedule_id: s.id }, kind: 'scheduled' });
    const after = (await rig.service.get(s.id))!;
    expect(after).toMatchObject({ status: 'completed', next_run_at: null, last_run_at: '2026-03-27T12:30:00.000Z', run_count: 1 });
    const runs = (await rig.service.listRuns(s.id)).data;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      status: 'started',
      slot_at: '2026-03-27T12:30:00.000Z',
      turn_id: call.record.id,
      turn_status: 'queued',
      links: { turn: `/v1/turns/${call.record.id}`, events: `/v1/turns/${call.record.id}/events` },
    });
  });

  it('starts the turn with the whole saved request', async () => {
    await create({ model: 'other-model', max_steps: 5, metadata: { source: 'test' }, brain: true, input: [{ role: 'user', content: 'hi' }] });
    rig.clock.set('2026-03-27T13:00:00Z');
    await scheduler().tick();
    expect(rig.turns.created[0].input).toEqual({
      input: [{ role: 'user', content: 'hi' }],
      agent_id: 'agent-1',
      tools: ['todo', 'schedule'],
      model: 'other-model',
      max_steps: 5,
      metadata: { source: 'test' },
      brain: true,
    });
  });

  it('fires a cron schedule on each slot in its zone across the spring-forward change', async () => {
    const early = await create({ name: '02:30', when: { cron: '30 2 * * *', timezone: 'Europe/Berlin' } });
    const nine = await create({ name: '09:00', when: { cron: '0 9 * * *', timezone: 'Europe/Berlin' } });
    const fired = await runUntil(scheduler(), '2026-03-31T12:00:00Z', 15 * 60_000);
    expect(fired.filter((f) => f.schedule_id === early.id).map((f) => f.slot)).toEqual([
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z', // 02:30 does not exist on 29 March: runs at 03:00 CEST
      '2026-03-30T00:30:00.000Z',
      '2026-03-31T00:30:00.000Z',
    ]);
    expect(fired.filter((f) => f.schedule_id === nine.id).map((f) => f.slot)).toEqual([
      '2026-03-28T08:00:00.000Z', // 09:00 CET
      '2026-03-29T07:00:00.000Z', // 09:00 CEST
      '2026-03-30T07:00:00.000Z',
      '2026-03-31T07:00:00.000Z',
    ]);
    expect(rig.turns.created).toHaveLength(8);
  });

  it('fires a cron schedule on each slot in its zone across the fall-back change, the repeated 02:30 once', async () => {
    rig.clock.set('2026-10-23T12:00:00Z');
    const early = await create({ name: '02:30', when: { cron: '30 2 * * *', timezone: 'Europe/Berlin' } });
    const halfHourly = await create({ name: 'every 30 min at night', when: { cron: '*/30 1-3 * * *', timezone: 'Europe/Berlin' } });
    const fired = await runUntil(scheduler(), '2026-10-26T12:00:00Z', 10 * 60_000);
    expect(fired.filter((f) => f.schedule_id === early.id).map((f) => f.slot)).toEqual([
      '2026-10-24T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T00:30:00.000Z', // 02:30 CEST, first pass; the second 02:30 (CET, 01:30Z) does not run
      '2026-10-26T01:30:00.000Z', // 02:30 CET
    ]);
    // an interval job runs on both passes of the repeated hour 02:00–02:59
    const night = fired.filter((f) => f.schedule_id === halfHourly.id && f.slot.startsWith('2026-10-25')).map((f) => f.slot);
    expect(night).toEqual([
      '2026-10-25T00:00:00.000Z', // 02:00 CEST
      '2026-10-25T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T01:00:00.000Z', // 02:00 CET
      '2026-10-25T01:30:00.000Z', // 02:30 CET
      '2026-10-25T02:00:00.000Z', // 03:00 CET
      '2026-10-25T02:30:00.000Z', // 03:30 CET
    ]);
  });

  it('does not fire while paused and continues at the next slot after resuming', async () => {
    const s = await create();
    const sch = scheduler();
    await rig.service.update(s.id, { paused: true });
    expect(await runUntil(sch, '2026-03-27T15:10:00Z')).toEqual([]);
    await rig.service.update(s.id, { paused: false });
    expect(await runUntil(sch, '2026-03-27T16:30:00Z')).toEqual([{ schedule_id: s.id, slot: '2026-03-27T16:00:00.000Z' }]);
  });

  it('never fires a deleted schedule again', async () => {
    const s = await create();
    const sch = scheduler();
    expect(await runUntil(sch, '2026-03-27T13:30:00Z')).toHaveLength(1);
    await rig.service.delete(s.id);
    expect(await runUntil(sch, '2026-03-27T18:00:00Z')).toEqual([]);
    expect(rig.turns.created).toHaveLength(1);
  });

  it('after downtime fires a missed one-shot once and a recurring schedule once for all missed slots, then on rhythm', async () => {
    const hourly = await create({ name: 'hourly' });
    const once = await create({ name: 'once', when: { at: '2026-03-27T14:00:00Z' } });
    // service down from 12:00 to 17:30: nobody ticks
    rig.clock.set('2026-03-27T17:30:00Z');
    const sch = scheduler();
    const first = await sch.start();
    await sch.stop(); // the rest of the test ticks by hand
    const after = scheduler();
    expect(first.started.map((r) => [r.schedule_id, new Date(r.slot_at).toISOString(), r.missed_slots]).sort()).toEqual(
      [
        [hourly.id, '2026-03-27T13:00:00.000Z', 4], // 14:00, 15:00, 16:00, 17:00 folded in
        [once.id, '2026-03-27T14:00:00.000Z', 0],
      ].sort(),
    );
    expect((await rig.service.get(hourly.id))!.next_run_at).toBe('2026-03-27T18:00:00.000Z');
    expect((await rig.service.listRuns(hourly.id)).data[0].missed_slots).toBe(4);
    expect(await runUntil(after, '2026-03-27T19:30:00Z')).toEqual([
      { schedule_id: hourly.id, slot: '2026-03-27T18:00:00.000Z' },
      { schedule_id: hourly.id, slot: '2026-03-27T19:00:00.000Z' },
    ]);
    expect(rig.turns.created).toHaveLength(4);
  });

  it('re-starts a run claimed before a crash, exactly once', async () => {
    const s = await create();
    rig.clock.set('2026-03-27T13:00:00Z');
    // a previous process claimed the 13:00 slot and died before starting the turn
    const run = (await rig.store.claim((await rig.store.get(s.id))!, { runId: '01900000-0000-7000-8000-0000000000aa', nextRunAt: Date.parse('2026-03-27T14:00:00Z'), status: 'active', missedSlots: 0 }, rig.clock.now(), 'dead-instance'))!;
    expect((await rig.store.getRun(run.id))!.status).toBe('claimed');
    const sch = scheduler();
    const r = await sch.start();
    await sch.stop();
    expect(r.started).toHaveLength(1);
    expect(r.started[0]).toMatchObject({ run_id: run.id, slot_at: Date.parse('2026-03-27T13:00:00Z') });
    expect(rig.turns.created).toHaveLength(1);
    expect(rig.turns.created[0].options.idempotencyKey).toBe(`schedule_run:${run.id}`);
    expect((await rig.store.getRun(run.id))!.status).toBe('started');
    // a second restart finds nothing left to recover
    const again = scheduler();
    expect((await again.recover()).started).toEqual([]);
  });

  it('does not start a second turn when the crash came after the turn was created', async () => {
    const s = await create();
    rig.clock.set('2026-03-27T13:00:00Z');
    const run = (await rig.store.claim((await rig.store.get(s.id))!, { runId: '01900000-0000-7000-8000-0000000000bb', nextRunAt: Date.parse('2026-03-27T14:00:00Z'), status: 'active', missedSlots: 0 }, rig.clock.now(), 'dead-instance'))!;
    const turn = await rig.turns.create({ input: 'x', agent_id: 'agent-1' }, { idempotencyKey: `schedule_run:${run.id}` });
    const sch = scheduler();
    const r = await sch.recover();
    expect(r.started.map((x) => x.turn_id)).toEqual([turn.id]);
    expect(rig.turns.created).toHaveLength(1);
  });

  it('fires each slot once when two instances share the database', async () => {
    const schedules = [];
    for (let i = 0; i < 10; i++) schedules.push(await create({ name: `report ${i}` }));
    const other = new Scheduler({ store: rig.otherStore(), turns: rig.turns, clock: rig.clock, tickMs: 1000 });
    const mine = scheduler();
    rig.clock.set('2026-03-27T13:00:05Z');
    const [a, b] = await Promise.all([mine.tick(), other.tick()]);
    expect(a.started.length + b.started.length).toBe(10);
    expect(rig.turns.created.map((c) => (c.options.origin as { schedule_id: string }).schedule_id).sort()).toEqual(schedules.map((s) => s.id).sort());
    // a claim made from a stale read changes nothing
    const s = schedules[0];
    const stale = (await rig.store.get(s.id))!;
    stale.next_run_at = Date.parse('2026-03-27T13:00:00Z');
    expect(await rig.store.claim(stale, { runId: '01900000-0000-7000-8000-0000000000cc', nextRunAt: 1, status: 'active', missedSlots: 0 }, rig.clock.now(), 'x')).toBeUndefined();
    expect((await rig.service.listRuns(s.id)).data).toHaveLength(1);
  });

  it('records a run the turn service refused as failed and keeps the schedule on rhythm', async () => {
    const s = await create();
    rig.turns.failNext = Object.assign(new Error('no model endpoint configured'), { code: 'model_not_configured' });
    rig.clock.set('2026-03-27T13:00:00Z');
    const r = await scheduler().tick();
    expect(r.failed).toEqual([{ run_id: expect.any(String), schedule_id: s.id, error: { code: 'model_not_configured', message: 'no model endpoint configured' } }]);
    expect((await rig.service.listRuns(s.id)).data[0]).toMatchObject({ status: 'failed', turn_id: null, links: null, error: { code: 'model_not_configured' } });
    expect((await rig.service.get(s.id))!.next_run_at).toBe('2026-03-27T14:00:00.000Z');
  });
});
