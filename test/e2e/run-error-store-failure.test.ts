/**
 * A run that throws (an unexpected error: here the turn's tool assembler) ends its turn with
 * `turn.failed` (internal_error). When that terminal event cannot be stored either (the database
 * refuses it), the run is treated like any other lost store: the turn is paused (0.5 s, doubling)
 * and resumed, instead of being released and claimed again at once in a tight loop. Real SQLite: a
 * trigger on the service's own event_log refuses the insert.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';
import { readSse } from './support/sse-client.js';

let model: ScriptedResponsesServer;
let svc: TestService;
const runs: number[] = [];
beforeAll(async () => {
  model = await startScriptedResponsesServer(); // never asked: the run fails before its first request
  svc = await startTestService({
    modelBaseURL: model.baseURL,
    overrides: {
      assembleTools: async () => {
        runs.push(Date.now());
        throw new Error('assembler bug (thrown by the test)');
      },
    },
  });
});
afterAll(async () => {
  await svc.close();
  await model.close();
});

it('a run error whose turn.failed cannot be stored pauses the turn (0.5 s, 1 s …) and fails it once storing works again', async () => {
  const db = svc.services.db;
  db.exec(`CREATE TEMP TRIGGER refuse_failed BEFORE INSERT ON event_log
    WHEN NEW.type = 'turn.failed'
    BEGIN SELECT RAISE(ABORT, 'disk full (refused by the test)'); END`);
  const created = await api(svc.url, 'POST', '/v1/turns', { input: 'go' });
  expect(created.status).toBe(202);
  await new Promise((r) => setTimeout(r, 1300));
  // Runs at 0 s, 0.5 s and 1.5 s: two in 1.3 s (released at once, the turn was run again and again).
  expect(runs.length).toBeGreaterThanOrEqual(2);
  expect(runs.length).toBeLessThanOrEqual(3);
  expect(runs[1] - runs[0]).toBeGreaterThanOrEqual(450);
  expect((await api(svc.url, 'GET', `/v1/turns/${created.body.id}`)).body.status).toBe('running');
  db.exec('DROP TRIGGER refuse_failed');
  const sse = await readSse(`${svc.url}/v1/turns/${created.body.id}/events`, { timeoutMs: 10_000 });
  const last = sse.events.at(-1);
  expect(last?.event).toBe('turn.failed');
  expect(last?.json.error).toMatchObject({ code: 'internal_error', message: expect.stringContaining('assembler bug') });
  expect(sse.events.map((e) => e.id)).toEqual(sse.events.map((_, i) => String(i + 1)));
  expect((await api(svc.url, 'GET', `/v1/turns/${created.body.id}`)).body.status).toBe('failed');
  expect(model.requests).toHaveLength(0);
}, 20_000);
