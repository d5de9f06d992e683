/**
 * Every endpoint that returns a turn returns it with `links` (self, events, cancel), and each such
 * response matches openapi.yaml (where `links` is required on Turn): POST ?wait=true, GET one,
 * GET list, POST cancel. With AUTH_TOKENS set, links.events carries a working stream token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedResponsesServer, message, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from './support/service.js';
import { validateResponse } from './support/spec.js';
import { readSse } from './support/sse-client.js';

const TOKEN = 'turn-links-test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
let model: ScriptedResponsesServer;
let svc: TestService;
beforeAll(async () => {
  model = await startScriptedResponsesServer(Array.from({ length: 5 }, () => ({ output: [message('done')] })));
  svc = await startTestService({ modelBaseURL: model.baseURL, env: { AUTH_TOKENS: TOKEN } });
});
afterAll(async () => {
  await svc.close();
  await model.close();
});

function expectLinks(turn: any) {
  const self = `/v1/turns/${turn.id}`;
  expect(turn.links.self).toBe(self);
  expect(turn.links.cancel).toBe(`${self}/cancel`);
  expect(turn.links.events).toMatch(new RegExp(`^${self}/events\\?stream_token=`));
}

describe('turn links on every turn response', () => {
  it('POST /v1/turns?wait=true returns the finished turn with links, as GET does, both per openapi.yaml', async () => {
    const waited = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' }, AUTH);
    expect(waited.status).toBe(200);
    expect(waited.body.status).toBe('completed');
    expectLinks(waited.body);
    expect(validateResponse('/v1/turns', 'post', 200, waited.body)).toEqual([]);

    const got = await api(svc.url, 'GET', `/v1/turns/${waited.body.id}`, undefined, AUTH);
    expect(validateResponse('/v1/turns/{id}', 'get', 200, got.body)).toEqual([]);
    const { links: a, ...restWaited } = waited.body;
    const { links: b, ...restGot } = got.body;
    expect(restWaited).toEqual(restGot);
    expect(Object.keys(a)).toEqual(Object.keys(b));

    // The events link of the wait=true response opens the stream without Authorization.
    const sse = await readSse(svc.url + waited.body.links.events);
    expect(sse.status).toBe(200);
    expect(sse.events.at(-1)?.event).toBe('turn.completed');
  });

  it('GET /v1/turns lists turns with links, per openapi.yaml', async () => {
    const list = await api(svc.url, 'GET', '/v1/turns', undefined, AUTH);
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBeGreaterThan(0);
    for (const t of list.body.data) expectLinks(t);
    expect(validateResponse('/v1/turns', 'get', 200, list.body)).toEqual([]);
  });

  it('POST /v1/turns/{id}/cancel returns the turn with links, per openapi.yaml', async () => {
    const created = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'again' }, AUTH);
    const cancelled = await api(svc.url, 'POST', `/v1/turns/${created.body.id}/cancel`, undefined, AUTH);
    expect(cancelled.status).toBe(200);
    expectLinks(cancelled.body);
    expect(validateResponse('/v1/turns/{id}/cancel', 'post', 200, cancelled.body)).toEqual([]);
  });
});
