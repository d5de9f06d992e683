/**
 * A one-shot schedule that already ran is finished: PATCH with `paused` (true or false) is a 409
 * `schedule_finished` that changes nothing, while a new `when` still makes it run again. Real
 * service on a loopback port; the schedule really fires a turn against the scripted model.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../e2e/support/service.js';
import { validateResponse } from '../e2e/support/spec.js';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';

let svc: TestService;
let model: ScriptedResponsesServer;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
  svc = await startTestService({ modelBaseURL: model.baseURL, env: { SCHEDULER_TICK_MS: '50' } });
});
afterAll(async () => {
  await svc?.close();
  await model?.close();
});

it('refuses to pause or resume a completed one-shot with 409 schedule_finished, leaving it as it was', async () => {
  model.push({ output: [message('ran once')] });
  const created = await api(svc.url, 'POST', '/v1/schedules', { name: 'once', when: { after: { value: 1, unit: 'second' } }, input: 'do it' });
  expect(created.status).toBe(201);
  const path = `/v1/schedules/${created.body.id}`;
  await expect.poll(async () => (await api(svc.url, 'GET', path)).body.status, { timeout: 15_000 }).toBe('completed');
  const before = (await api(svc.url, 'GET', path)).body;

  for (const paused of [true, false]) {
    const r = await api(svc.url, 'PATCH', path, { paused });
    expect(r.status).toBe(409);
    expect(validateResponse('/v1/schedules/{id}', 'patch', 409, r.body)).toEqual([]);
    expect(r.body.error).toMatchObject({ code: 'schedule_finished', details: { id: created.body.id, status: 'completed' } });
    expect(r.body.error.message).toMatch(/has finished .*cannot be paused or resumed.*new "when"/);
  }
  // Other fields in the same PATCH are not applied either.
  expect((await api(svc.url, 'PATCH', path, { paused: true, name: 'renamed' })).status).toBe(409);
  expect((await api(svc.url, 'GET', path)).body).toEqual(before);

  const again = await api(svc.url, 'PATCH', path, { when: { after: { value: 1, unit: 'hour' } }, paused: true });
  expect(again.status).toBe(200);
  expect(again.body.status).toBe('paused');
});
