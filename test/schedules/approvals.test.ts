/**
 * Schedules carry `approvals` (REST only) into every turn they fire: the fired turn waits for the
 * user like any turn, is approved over HTTP and completes. A name the schedule's tools do not have
 * is refused when the schedule is created or changed.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { validateResponse } from '../e2e/support/spec.js';

const harness = useScriptedService({ env: { SCHEDULER_TICK_MS: '50' } });

async function waitFor<T>(fn: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('waitFor timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('schedules with approvals', () => {
  it('a fired turn waits for approval of the calls its schedule names, and completes once approved', async () => {
    harness.model.push(
      { output: [functionCall('todo', { todos: [{ id: '1', content: 'water the plants', status: 'in_progress' }] }, { callId: 'call_s1' })] },
      { output: [message('plants watered')] },
    );
    const created = await api(harness.svc.url, 'POST', '/v1/schedules', {
      name: 'plants', when: { after: { value: 1, unit: 'second' } }, input: 'water the plants', tools: ['todo'], approvals: { todo: 'always' },
    });
    expect(created.status).toBe(201);
    expect(created.body.approvals).toEqual({ todo: 'always' });
    expect(validateResponse('/v1/schedules', 'post', 201, created.body)).toEqual([]);

    const turnId = await waitFor(async () => {
      const runs = await api(harness.svc.url, 'GET', `/v1/schedules/${created.body.id}/runs`);
      return runs.body.data[0]?.turn_id ?? undefined;
    });
    const waiting = await waitFor(async () => {
      const t = (await api(harness.svc.url, 'GET', `/v1/turns/${turnId}`)).body;
      return t.status === 'waiting' ? t : undefined;
    });
    expect(waiting).toMatchObject({ kind: 'scheduled', pending_approvals: [expect.objectContaining({ call_id: 'call_s1', name: 'todo' })] });
    expect((await api(harness.svc.url, 'POST', `/v1/turns/${turnId}/approvals`, { call_id: 'call_s1', decision: 'approve' })).status).toBe(200);
    const done = await waitFor(async () => {
      const t = (await api(harness.svc.url, 'GET', `/v1/turns/${turnId}`)).body;
      return t.status === 'completed' ? t : undefined;
    });
    expect(done.output_text).toBe('plants watered');

    const cleared = await api(harness.svc.url, 'PATCH', `/v1/schedules/${created.body.id}`, { approvals: null });
    expect(cleared.body.approvals).toBeNull();
  });

  it('a schedule the model creates inside a turn with approvals inherits them', async () => {
    harness.model.push(
      { output: [functionCall('schedule_create', { name: 'inherit', when: { after: { value: 1, unit: 'hour' } }, input: 'later' })] },
      { output: [message('scheduled')] },
    );
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'schedule it', agent_id: 'inherit-1', tools: ['todo', 'schedule'], approvals: { todo: 'always' } });
    expect(r.body.status).toBe('completed');
    const list = await api(harness.svc.url, 'GET', '/v1/schedules?agent_id=inherit-1');
    expect(list.body.data).toEqual([expect.objectContaining({ name: 'inherit', approvals: { todo: 'always' } })]);
  });

  it('refuses approvals naming a tool the schedule does not have, on create and on change', async () => {
    const bad = await api(harness.svc.url, 'POST', '/v1/schedules', { name: 'x', when: { after: { value: 1, unit: 'hour' } }, input: 'x', tools: ['todo'], approvals: { command: 'always' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'unknown_approval_tool', details: { unknown: ['command'] } });
    expect(bad.body.error.message).toBe('approvals names "command", not among the tools each turn this schedule starts would get; those are: todo (add the family to tools, or fix the name)');
    const ok = await api(harness.svc.url, 'POST', '/v1/schedules', { name: 'y', when: { after: { value: 1, unit: 'hour' } }, input: 'y', tools: ['todo'] });
    expect(ok.body.approvals).toBeNull();
    const patch = await api(harness.svc.url, 'PATCH', `/v1/schedules/${ok.body.id}`, { approvals: { write_file: 'never' } });
    expect(patch.status).toBe(400);
    expect(patch.body.error.code).toBe('unknown_approval_tool');
    expect(patch.body.error.message).toContain('not among the tools each turn this schedule starts would get');
    const fine = await api(harness.svc.url, 'PATCH', `/v1/schedules/${ok.body.id}`, { approvals: 'destructive' });
    expect(fine.body.approvals).toBe('destructive');
  });
});
