/**
 * A client waiting on `POST /v1/turns?wait=true` when the real service process gets SIGTERM (or
 * SIGHUP, which a closed terminal sends: the same graceful stop, also when it comes twice) is
 * answered — 503 `shutting_down` with the turn's id, how to follow it and a Retry-After — instead
 * of having its connection cut with no answer (without an Idempotency-Key it would never learn
 * the id); the turn resumes after the restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../../support/scripted-responses-server.js';
import { validateResponse } from '../support/spec.js';
import { crashRig, slowSearchServer, waitUntil } from './harness.js';

let model: ScriptedResponsesServer;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
});
afterAll(async () => {
  await model.close();
});

describe.each([
  ['SIGTERM', 1],
  ['SIGHUP', 2],
] as const)('POST /v1/turns?wait=true during a graceful stop (%s sent %i times)', (signal, times) => {
  it('is answered 503 shutting_down with the turn id, its events path and Retry-After; the turn completes after the restart', async () => {
    const search = await slowSearchServer(10_000);
    const rig = await crashRig(model.baseURL, { WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_URL: search.url });
    try {
      await rig.start();
      model.push({ output: [functionCall('web_search', { query: 'maps' }, { callId: 'call_search' })] });
      const waiting = fetch(`${rig.url}/v1/turns?wait=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ input: 'search maps', tools: ['web'], cancel_on_disconnect: true }),
      });
      await waitUntil(() => search.hits() === 1);
      const stopped = rig.stop(signal);
      for (let i = 1; i < times; i++) {
        await new Promise((r) => setTimeout(r, 5));
        rig.signal(signal);
      }
      const res = await waiting;
      const body = await res.json();
      expect(res.status).toBe(503);
      expect(validateResponse('/v1/turns', 'post', 503, body)).toEqual([]);
      const id = body.error.details.turn_id as string;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(body.error).toEqual({
        code: 'shutting_down',
        message: `the service is shutting down before turn ${id} ended; the turn is kept and goes on after the restart: follow it with GET /v1/turns/${id}/events (resume with Last-Event-ID) or read it with GET /v1/turns/${id} once the service is back`,
        details: { turn_id: id, status: expect.stringMatching(/^(queued|running)$/), events: `/v1/turns/${id}/events` },
      });
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.headers.get('location')).toBe(`/v1/turns/${id}`);
      expect(res.headers.get('x-turn-id')).toBe(id);
      expect(await stopped).toBe(0);
      // Not a client leaving: cancel_on_disconnect does not cancel it; it goes on after the restart.
      model.push({ output: [message('done searching')] });
      await rig.start();
      expect(await rig.finished(id)).toMatchObject({ status: 'completed', output_text: 'done searching' });
    } finally {
      await rig.dispose();
      await search.close();
    }
  }, 300_000);
});
