/**
 * A turn event that cannot be stored (the database went away, a disk filled) stops the run: the
 * turn resumes from its last checkpoint with `turn.resumed` and runs the cut round again, so its
 * stream is complete — instead of going on with that event silently missing (seen on Postgres
 * during an outage: message deltas gone from a turn that completed without `turn.resumed`).
 * The failure is real SQLite: a trigger on the service's own event_log refuses one insert.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';
import { readSse } from './support/sse-client.js';

let model: ScriptedResponsesServer;
let svc: TestService;
let refused = 0;
beforeAll(async () => {
  // Streamed slowly (80 ms before each provider event), so each delta is stored on its own and the
  // events after the refused one would be stored fine: the case where a gap could form.
  const slow = { output: [message('the whole answer', { chunks: ['the ', 'whole ', 'answer'] })], delayMs: 80 };
  model = await startScriptedResponsesServer([slow, slow]);
  svc = await startTestService({ modelBaseURL: model.baseURL });
  const db = svc.services.db;
  db.function('refuse_once', () => (refused++ === 0 ? 1 : 0));
  db.exec(`CREATE TEMP TRIGGER refuse_first_delta BEFORE INSERT ON event_log
    WHEN NEW.type = 'message.delta' AND refuse_once() = 1
    BEGIN SELECT RAISE(ABORT, 'disk I/O error (refused by the test)'); END`);
});
afterAll(async () => {
  await svc.close();
  await model.close();
});

it('resumes the turn from its checkpoint when an event could not be stored, so no event is missing from its stream', async () => {
  const created = await api(svc.url, 'POST', '/v1/turns', { input: 'go' });
  expect(created.status).toBe(202);
  const sse = await readSse(`${svc.url}/v1/turns/${created.body.id}/events`, { timeoutMs: 30_000 });
  const types = sse.events.map((e) => e.event);
  expect(refused).toBeGreaterThan(0); // the refusal happened
  // Everything after turn.resumed is the round run again, whole; nothing of the cut run follows the refusal.
  const resumed = types.indexOf('turn.resumed');
  expect(resumed).toBeGreaterThan(0);
  expect(types.slice(resumed + 1).filter((t) => t !== 'message.delta')).toEqual(['message.completed', 'turn.completed']);
  expect(sse.events.slice(resumed + 1).filter((e) => e.event === 'message.delta').map((e) => e.json.text).join('')).toBe('the whole answer');
  expect(sse.events.map((e) => e.id)).toEqual(sse.events.map((_, i) => String(i + 1)));
  expect(model.requests).toHaveLength(2); // the cut round ran again
  const turn = await api(svc.url, 'GET', `/v1/turns/${created.body.id}`);
  expect(turn.body).toMatchObject({ status: 'completed', output_text: 'the whole answer' });
});

it('a failure that persists resumes the turn after pauses that double (0.5 s, 1 s, 2 s …), not in a tight loop of model requests; it completes once storing works again', async () => {
  const db = svc.services.db;
  db.exec(`CREATE TEMP TRIGGER refuse_every_delta BEFORE INSERT ON event_log
    WHEN NEW.type = 'message.delta'
    BEGIN SELECT RAISE(ABORT, 'disk full (refused by the test)'); END`);
  const seen = model.requests.length;
  const times: number[] = [];
  // Every run is answered at once (no delay): only the runner's pauses space the requests out.
  model.push(...Array.from({ length: 40 }, () => (() => {
    times.push(Date.now());
    return { output: [message('answer')] };
  })));
  const created = await api(svc.url, 'POST', '/v1/turns', { input: 'go' });
  expect(created.status).toBe(202);
  await new Promise((r) => setTimeout(r, 3200));
  const runs = model.requests.length - seen;
  // 0 s, 0.5 s, 1.5 s, 3.5 s: three or four runs in 3.2 s (a tight loop made hundreds).
  expect(runs).toBeGreaterThanOrEqual(3);
  expect(runs).toBeLessThanOrEqual(4);
  const gaps = times.slice(1).map((t, i) => t - times[i]);
  expect(gaps[0]).toBeGreaterThanOrEqual(450);
  expect(gaps[1]).toBeGreaterThanOrEqual(950);
  db.exec('DROP TRIGGER refuse_every_delta');
  const sse = await readSse(`${svc.url}/v1/turns/${created.body.id}/events`, { timeoutMs: 10_000 });
  expect(sse.events.at(-1)?.event).toBe('turn.completed');
  expect(sse.events.map((e) => e.id)).toEqual(sse.events.map((_, i) => String(i + 1)));
}, 20_000);

it('a cancel during such a pause ends the turn at once (the pause is cut short)', async () => {
  const db = svc.services.db;
  db.exec(`CREATE TEMP TRIGGER refuse_every_delta2 BEFORE INSERT ON event_log
    WHEN NEW.type = 'message.delta'
    BEGIN SELECT RAISE(ABORT, 'disk full (refused by the test)'); END`);
  try {
    const seen = model.requests.length;
    model.push(...Array.from({ length: 10 }, () => ({ output: [message('answer')] })));
    const created = await api(svc.url, 'POST', '/v1/turns', { input: 'go' });
    // Four stalls in a row: the pause before the next run is 4 s.
    await expect.poll(() => model.requests.length - seen, { timeout: 6000 }).toBe(4);
    const t0 = Date.now();
    const cancelled = await api(svc.url, 'POST', `/v1/turns/${created.body.id}/cancel`);
    expect(cancelled.body.status).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(2000);
  } finally {
    db.exec('DROP TRIGGER refuse_every_delta2');
  }
}, 20_000);
