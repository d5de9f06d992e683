import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TurnContext } from '../../src/assembly/context.js';
import { assembleTools, MAIN_TURN_FAMILIES } from '../../src/assembly/assemble.js';
import type { AnyWorkerAgentTool } from '../../src/runtime/tool.js';
import { Scheduler } from '../../src/schedules/scheduler.js';
import { createScheduleFamily } from '../../src/tools/schedule/index.js';
import { scheduleRig, turnContext, type ScheduleRig } from './support.js';

let rig: ScheduleRig;
beforeEach(async () => {
  rig = await scheduleRig('2026-03-27T12:00:00Z'); // a Friday
});
afterEach(() => rig.close());

async function toolsFor(ctx: TurnContext) {
  return assembleTools(ctx, [createScheduleFamily({ clock: rig.clock })]);
}

function byName(tools: AnyWorkerAgentTool[], name: string): AnyWorkerAgentTool {
  const t = tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
}

/** Validate like the dispatcher does, then run; returns the labels and the result. */
async function call(ctx: TurnContext, tools: AnyWorkerAgentTool[], name: string, args: unknown) {
  const tool = byName(tools, name);
  const params = tool.schema.parse(args);
  const label = tool.describeActivity(params);
  const result = await tool.execute(params, { callId: 'call_1', signal: ctx.signal, turn: ctx, emit: () => {}, outputMaxChars: 50_000 });
  const completed = tool.describeCompletedActivity?.(params, result) ?? label;
  const text = result.content.map((c: { type: string; text?: string }) => c.text ?? '').join('\n');
  return { label, completed, result, text };
}

const dailyReport = { name: 'daily report', when: { cron: '0 9 * * *', timezone: 'Europe/Berlin' }, input: 'Write the daily report' };

describe('schedule family', () => {
  it('is registered between web and workflow in the main-turn families', () => {
    const names = MAIN_TURN_FAMILIES.map((f) => f.family);
    expect(names.filter((n) => n === 'web' || n === 'schedule' || n === 'workflow')).toEqual(['web', 'schedule', 'workflow']);
  });

  it('gives a main turn that asked for it all five tools', async () => {
    const a = await toolsFor(turnContext(rig));
    expect(a.tools.map((t) => t.name)).toEqual(['schedule_create', 'schedule_list', 'schedule_get', 'schedule_update', 'schedule_delete']);
    expect(a.unavailable).toEqual([]);
  });

  it('gives a scheduled turn only schedule_list and schedule_get and says why in unavailable and descriptions', async () => {
    const ctx = turnContext(rig, { kind: 'scheduled', origin: { type: 'schedule', schedule_id: 'sch-1' } });
    const a = await toolsFor(ctx);
    expect(a.tools.map((t) => t.name)).toEqual(['schedule_list', 'schedule_get']);
    expect(a.unavailable).toHaveLength(1);
    expect(a.unavailable[0].family).toBe('schedule');
    expect(a.unavailable[0].reason).toMatch(/schedule_create, schedule_update and schedule_delete withheld: this turn was started by schedule sch-1/);
    expect(byName(a.tools, 'schedule_list').description).toMatch(/started by schedule sch-1; scheduled turns may read schedules but not create/);
  });

  it('reports the family unavailable when not requested, without a service, or in a workflow task', async () => {
    expect((await toolsFor(turnContext(rig, { families: ['todo'] }))).unavailable).toEqual([{ family: 'schedule', reason: 'not enabled for this turn' }]);
    expect((await toolsFor(turnContext(rig, { withService: false }))).unavailable[0].reason).toMatch(/not configured/);
    const wf = await toolsFor(turnContext(rig, { kind: 'workflow_task', origin: { type: 'workflow', workflow_id: 'w', task_index: 0 } }));
    expect(wf.tools).toEqual([]);
  });
});

describe('schedule tools', () => {
  it('schedule_create saves a schedule for the calling agent with its tool families, labelled with the next run', async () => {
    const ctx = turnContext(rig, { agentId: 'reporter', families: ['todo', 'web', 'schedule'], brain: true });
    const { tools } = await toolsFor(ctx);
    const r = await call(ctx, tools, 'schedule_create', { ...dailyReport, instructions: 'Be brief' });
    expect(r.label).toBe('Scheduling “daily report” for 09:00 Europe/Berlin');
    expect(r.completed).toBe('Scheduled “daily report” (next run Sat 09:00)');
    const s = r.result.details.schedule;
    expect(s).toMatchObject({
      agent_id: 'reporter',
      tools: ['todo', 'web', 'schedule'],
      brain: true,
      input: 'Write the daily report',
      instructions: 'Be brief',
      next_run_at: '2026-03-28T08:00:00.000Z',
      created_by: { type: 'turn', turn_id: ctx.turnId },
    });
    expect(r.text).toContain(`Schedule ${s.id} “daily report” — active`);
    expect(r.text).toContain('next run: 2026-03-28T08:00:00.000Z (Sat 09:00 Europe/Berlin)');
  });

  it('labels one-shots in the zone they were given', async () => {
    const ctx = turnContext(rig);
    const { tools } = await toolsFor(ctx);
    const at = await call(ctx, tools, 'schedule_create', { name: 'call mum', when: { at: '2026-03-29T18:30:00+02:00' }, input: 'Remind me' });
    expect(at.label).toBe('Scheduling “call mum” for Sun 18:30 (+02:00)');
    expect(at.completed).toBe('Scheduled “call mum” (next run Sun 18:30)');
    const after = await call(ctx, tools, 'schedule_create', { name: 'tea', when: { after: { value: 10, unit: 'minute' } }, input: 'Tea is ready' });
    expect(after.label).toBe('Scheduling “tea” in 10 minutes');
    expect(after.completed).toBe('Scheduled “tea” (next run Fri 12:10 UTC)');
    expect(after.text).toMatch(/next run: \S+Z \(Fri 12:10 UTC\)\n/); // the zone once
  });

  it('creates one schedule when the same call is retried in the same turn, and a new one in another turn', async () => {
    const ctx = turnContext(rig);
    const { tools } = await toolsFor(ctx);
    const first = await call(ctx, tools, 'schedule_create', dailyReport);
    const again = await call(ctx, tools, 'schedule_create', dailyReport);
    expect(again.result.details).toMatchObject({ created: false, schedule: { id: first.result.details.schedule.id } });
    expect(again.text).toMatch(/already created this schedule; nothing new was created/);
    const other = turnContext(rig);
    const third = await call(other, (await toolsFor(other)).tools, 'schedule_create', dailyReport);
    expect(third.result.details.schedule.id).not.toBe(first.result.details.schedule.id);
    expect((await rig.service.list({ agent_id: 'agent-1' })).data).toHaveLength(2);
  });

  it('throws errors the model can act on for a bad when', async () => {
    const ctx = turnContext(rig);
    const { tools } = await toolsFor(ctx);
    await expect(call(ctx, tools, 'schedule_create', { ...dailyReport, when: { cron: '0 9 * *', timezone: 'Europe/Berlin' } })).rejects.toThrow(
      /not a valid cron expression.*Use 5 fields/,
    );
    await expect(call(ctx, tools, 'schedule_create', { ...dailyReport, when: { cron: '0 9 * * *', timezone: 'Berlin' } })).rejects.toThrow(
      /not a known IANA time zone/,
    );
    await expect(call(ctx, tools, 'schedule_create', { ...dailyReport, when: {} })).rejects.toThrow(/none of at, after, cron/);
    await expect(call(ctx, tools, 'schedule_create', { ...dailyReport, when: { cron: '0 9 * * *', timezone: '+02:00' } })).rejects.toThrow(
      'when.timezone "+02:00" is a UTC offset, not a time zone: an offset does not follow daylight saving time. Use the IANA name of the place, such as "Europe/Berlin"',
    );
    expect((await rig.service.list({})).data).toEqual([]);
  });

  it('stores a time zone the model wrote in any case in its canonical spelling, in create and update', async () => {
    const ctx = turnContext(rig);
    const { tools } = await toolsFor(ctx);
    const r = await call(ctx, tools, 'schedule_create', { ...dailyReport, when: { cron: '0 9 * * *', timezone: 'europe/berlin' } });
    expect(r.label).toBe('Scheduling “daily report” for 09:00 Europe/Berlin');
    expect(r.result.details.schedule.when).toEqual({ cron: '0 9 * * *', timezone: 'Europe/Berlin' });
    expect(r.text).toContain('(Sat 09:00 Europe/Berlin)');
    const id = r.result.details.schedule.id;
    await call(ctx, tools, 'schedule_update', { id, changes: { when: { cron: '0 9 * * *', timezone: 'utc' } } });
    expect((await rig.service.get(id))!.when).toEqual({ cron: '0 9 * * *', timezone: 'UTC' });
    await expect(call(ctx, tools, 'schedule_update', { id, changes: { when: { cron: '0 9 * * *', timezone: '-0500' } } })).rejects.toThrow(/is a UTC offset, not a time zone/);
    expect((await rig.service.get(id))!.when).toEqual({ cron: '0 9 * * *', timezone: 'UTC' });
  });

  it('lists and gets the agent’s schedules with recent runs, and hides other agents’ schedules', async () => {
    const ctx = turnContext(rig);
    const { tools } = await toolsFor(ctx);
    const created = (await call(ctx, tools, 'schedule_create', { ...dailyReport, when: { cron: '0 * * * *', timezone: 'UTC' } })).result.details.schedule;
    const foreign = (await rig.service.create({ agent_id: 'someone-else', name: 'secret', when: { after: { value: 1, unit: 'hour' } }, input: 'x', tools: [] })).schedule;
    rig.clock.set('2026-03-27T13:00:00Z');
    await new Scheduler({ store: rig.store, turns: rig.turns, clock: rig.clock, tickMs: 1000 }).tick();

    const list = await call(ctx, tools, 'schedule_list', {});
    expect(list.completed).toBe('Listed 1 schedule');
    expect(list.text).toContain(`- ${created.id} “daily report” — active, cron "0 * * * *" in UTC, next run Fri 14:00`);
    expect(list.text).not.toContain('secret');

    const get = await call(ctx, tools, 'schedule_get', { id: created.id });
    expect(get.label).toBe('Reading schedule “daily report”');
    expect(get.completed).toBe('Read schedule “daily report” (1 recent run)');
    const turnId = rig.turns.created.find((c) => c.options.origin?.type === 'schedule' && c.options.origin.schedule_id === created.id)!.record.id;
    expect(get.text).toContain(`- slot 2026-03-27T13:00:00.000Z: started turn ${turnId} (queued)`);

    await expect(call(ctx, tools, 'schedule_get', { id: foreign.id })).rejects.toThrow(/no schedule with id .* for agent agent-1; call schedule_list/);
    await expect(call(ctx, tools, 'schedule_delete', { id: foreign.id })).rejects.toThrow(/no schedule/);
    expect(await rig.service.get(foreign.id)).toBeDefined();
  });

  it('pauses, resumes, changes and deletes a schedule', async () => {
    const ctx = turnContext(rig);
    const { tools } = await toolsFor(ctx);
    const id = (await call(ctx, tools, 'schedule_create', dailyReport)).result.details.schedule.id;
    const paused = await call(ctx, tools, 'schedule_update', { id, changes: { paused: true } });
    expect([paused.label, paused.completed]).toEqual(['Pausing “daily report”', 'Paused “daily report”']);
    expect((await rig.service.get(id))!.status).toBe('paused');
    const resumed = await call(ctx, tools, 'schedule_update', { id, changes: { paused: false } });
    expect(resumed.completed).toBe('Resumed “daily report” (next run Sat 09:00)');
    const changed = await call(ctx, tools, 'schedule_update', { id, changes: { when: { cron: '30 7 * * 1-5', timezone: 'Europe/Berlin' }, input: 'Shorter report' } });
    expect(changed.completed).toBe('Updated “daily report” (next run Mon 07:30)');
    expect(await rig.service.get(id)).toMatchObject({ input: 'Shorter report', when: { cron: '30 7 * * 1-5' } });
    expect(() => byName(tools, 'schedule_update').schema.parse({ id, changes: {} })).toThrow(/at least one field/);
    const del = await call(ctx, tools, 'schedule_delete', { id });
    expect([del.label, del.completed]).toEqual(['Deleting “daily report”', 'Deleted “daily report”']);
    expect(await rig.service.get(id)).toBeUndefined();
  });
});
