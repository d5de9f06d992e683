/**
 * Schedules end to end: the real server (scheduler running on the real clock, SCHEDULER_TICK_MS
 * 50), the real openai SDK against the scripted Responses server, a real SSE client. The model
 * creates a schedule inside a turn; the fired turn runs as kind `scheduled` with read-only schedule
 * tools, and its stream is readable via GET /v1/turns/{id}/events.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody, type ScriptEntry } from '../support/scripted-responses-server.js';
import { hasToolOutput, lastUserText } from '../e2e/support/scripts.js';
import { api, startTestService, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { validateResponse } from '../e2e/support/spec.js';

const harness = useScriptedService({ env: { SCHEDULER_TICK_MS: '50' } });

async function waitFor<T>(fn: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('waitFor timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const toolNames = (body: ResponsesRequestBody): string[] => (body.tools ?? []).map((t: { name?: string }) => t.name);

/** Scripted model: asked to remind → calls schedule_create, then confirms; a fired turn → answers. */
const scriptedModel: ScriptEntry = (body) => {
  const user = lastUserText(body);
  if (user === 'time to stretch') return { output: [message('Stretch now!')] };
  if (hasToolOutput(body)) return { output: [message('Scheduled your reminder.')] };
  return {
    output: [functionCall('schedule_create', { name: 'stretch', when: { after: { value: 1, unit: 'second' } }, input: 'time to stretch' })],
  };
};

describe('schedules end to end', () => {
  it('a schedule created by the model inside a turn fires a scheduled turn whose stream is readable', async () => {
    harness.model.push(scriptedModel, scriptedModel, scriptedModel);
    const first = await readSse(`${harness.svc.url}/v1/turns`, {
      method: 'POST',
      body: { input: 'remind me in a second', tools: ['todo', 'schedule'], agent_id: 'e2e-agent' },
    });
    expect(first.status).toBe(200);
    const started = first.events[0].json;
    expect(started.tools).toEqual(expect.arrayContaining(['schedule_create', 'schedule_list', 'schedule_get', 'schedule_update', 'schedule_delete']));
    const done = first.events.find((e) => e.event === 'tool.completed')!.json;
    expect(done).toMatchObject({ name: 'schedule_create', is_error: false });
    expect(done.label).toMatch(/^Scheduled “stretch” \(next run \w{3} \d{2}:\d{2} UTC\)$/);
    const scheduleId: string = done.details.schedule.id;
    expect(done.details.schedule).toMatchObject({ agent_id: 'e2e-agent', tools: ['todo', 'schedule'], created_by: { type: 'turn' } });
    expect(first.events.at(-1)!.json).toMatchObject({ type: 'turn.completed', output_text: 'Scheduled your reminder.' });

    // the scheduler fires it about a second later
    const run = await waitFor(async () => {
      const r = await api(harness.svc.url, 'GET', `/v1/schedules/${scheduleId}/runs`);
      if (r.body.data[0]?.status !== 'started') return undefined;
      expect(validateResponse('/v1/schedules/{id}/runs', 'get', 200, r.body)).toEqual([]);
      return r.body.data[0];
    });
    expect(run.links).toEqual({ turn: `/v1/turns/${run.turn_id}`, events: `/v1/turns/${run.turn_id}/events` });

    const fired = await readSse(`${harness.svc.url}${run.links.events}`);
    expect(fired.status).toBe(200);
    expect(fired.serverClosed).toBe(true);
    const firedStarted = fired.events[0].json;
    expect(firedStarted.type).toBe('turn.started');
    expect(firedStarted.tools).toEqual(expect.arrayContaining(['schedule_list', 'schedule_get']));
    expect(firedStarted.tools).not.toContain('schedule_create');
    expect(firedStarted.unavailable).toContainEqual({
      family: 'schedule',
      reason: expect.stringContaining(`this turn was started by schedule ${scheduleId}`),
    });
    expect(fired.events.at(-1)!.json).toMatchObject({ type: 'turn.completed', output_text: 'Stretch now!' });

    const turn = await api(harness.svc.url, 'GET', `/v1/turns/${run.turn_id}`);
    expect(turn.body).toMatchObject({ agent_id: 'e2e-agent', kind: 'scheduled', origin: { type: 'schedule', schedule_id: scheduleId }, status: 'completed' });

    // the model was never offered schedule_create in the scheduled turn
    const firedRequest = harness.model.requests.find((r) => lastUserText(r.body) === 'time to stretch')!;
    expect(toolNames(firedRequest.body)).toEqual(expect.arrayContaining(['schedule_list', 'schedule_get']));
    expect(toolNames(firedRequest.body)).not.toContain('schedule_create');

    // a one-shot fires once: it is completed and later ticks start nothing more
    await new Promise((r) => setTimeout(r, 300));
    const after = await api(harness.svc.url, 'GET', `/v1/schedules/${scheduleId}`);
    expect(validateResponse('/v1/schedules/{id}', 'get', 200, after.body)).toEqual([]);
    expect(after.body).toMatchObject({ status: 'completed', run_count: 1, next_run_at: null });
    expect((await api(harness.svc.url, 'GET', `/v1/schedules/${scheduleId}/runs`)).body.data).toHaveLength(1);
    expect(harness.model.remaining()).toBe(0);
  });

  it('a one-shot that came due while the service was down fires once when it starts again', async () => {
    const down = await startTestService({ modelBaseURL: harness.model.baseURL, env: { SCHEDULER_TICK_MS: '50' } });
    const created = await api(down.url, 'POST', '/v1/schedules', {
      name: 'missed',
      agent_id: 'downtime',
      tools: ['todo'],
      when: { after: { value: 1, unit: 'second' } },
      input: 'missed while down',
    });
    expect(created.status).toBe(201);
    await down.close({ keepData: true });
    await new Promise((r) => setTimeout(r, 1300)); // the slot passes while nothing runs

    harness.model.push(() => ({ output: [message('caught up')] }));
    const up = await startTestService({ modelBaseURL: harness.model.baseURL, dataDir: down.dataDir, env: { SCHEDULER_TICK_MS: '50' } });
    try {
      const runs = (await api(up.url, 'GET', `/v1/schedules/${created.body.id}/runs`)).body.data;
      expect(runs).toHaveLength(1); // fired during start-up, before the server listened
      expect(runs[0]).toMatchObject({ status: 'started', slot_at: created.body.next_run_at });
      const turn = await waitFor(async () => {
        const t = await api(up.url, 'GET', `/v1/turns/${runs[0].turn_id}`);
        return t.body.status === 'completed' ? t.body : undefined;
      });
      expect(turn).toMatchObject({ kind: 'scheduled', output_text: 'caught up', origin: { type: 'schedule', schedule_id: created.body.id } });
      await new Promise((r) => setTimeout(r, 200));
      expect((await api(up.url, 'GET', `/v1/schedules/${created.body.id}/runs`)).body.data).toHaveLength(1);
    } finally {
      await up.close();
    }
  });
});
