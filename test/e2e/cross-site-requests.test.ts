/**
 * Cross-site request guard (src/http/origin-check.ts), through the real server and a scripted
 * model: a page on another origin can make a browser send a bodyless or text/plain POST without a
 * CORS preflight. Such state-changing requests — an `Origin` that is neither the service's own nor
 * in CORS_ORIGINS, or only `Sec-Fetch-Site: cross-site` — get 403 `origin_not_allowed` and change
 * nothing; the service's own origin, an allowed origin and clients without Origin are served.
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { routedEntries, waitFor } from '../jobs/support.js';
import { firstUserText } from '../workflows/support.js';
import { api, startTestService, useScriptedService } from './support/service.js';
import { validateResponse } from './support/spec.js';
import { heldWork } from './support/held-work.js';

const ALLOWED = 'http://app.example.test:5173';
const EVIL = 'https://evil.example';
const harness = useScriptedService({ env: { CORS_ORIGINS: ALLOWED } });

let n = 0;

/** A turn whose model answer is held for a long time: it stays running until cancelled. */
async function runningTurn(): Promise<string> {
  const p = `cross-site: slow turn #${++n}`;
  harness.model.push(...routedEntries({ [p]: [{ output: [message('late')], holdMs: 30_000 }] }));
  const r = await api(harness.svc.url, 'POST', '/v1/turns', { input: p, tools: [] });
  expect(r.status).toBe(202);
  await waitFor(() => harness.model.requests.some((q) => firstUserText(q.body) === p));
  return r.body.id;
}

const { waitingJob, runningWorkflow } = heldWork(harness, 'cross-site', 'cross-site');

/** A bodyless POST, as a page's `fetch(url, {method: 'POST', mode: 'no-cors'})` sends it. */
function bodyless(path: string, headers: Record<string, string>) {
  return api(harness.svc.url, 'POST', path, undefined, headers);
}

function expectOriginRefused(r: { status: number; body: any }, route: string, origin: string): void {
  expect(r.status, route).toBe(403);
  expect(r.body.error.code).toBe('origin_not_allowed');
  expect(r.body.error.details).toEqual({ origin });
  expect(r.body.error.message).toContain(`comes from origin ${JSON.stringify(origin)} and is refused`);
  expect(validateResponse(route, 'post', 403, r.body)).toEqual([]);
}

describe('state-changing requests from a foreign origin', () => {
  it('refuses a bodyless turn cancel, job stop and workflow cancel with 403 naming the origin and CORS_ORIGINS; nothing is stopped', async () => {
    const turnId = await runningTurn();
    const jobId = await waitingJob();
    const workflowId = await runningWorkflow();

    const cancel = await bodyless(`/v1/turns/${turnId}/cancel`, { origin: EVIL });
    expectOriginRefused(cancel, '/v1/turns/{id}/cancel', EVIL);
    expect(cancel.body.error.message).toContain(`add that origin to CORS_ORIGINS (e.g. CORS_ORIGINS=${EVIL})`);
    expect(cancel.body.error.message).toContain(`this service's own origin (${harness.svc.url})`);
    expectOriginRefused(await bodyless(`/v1/jobs/${jobId}/stop`, { origin: EVIL }), '/v1/jobs/{id}/stop', EVIL);
    expectOriginRefused(await bodyless(`/v1/workflows/${workflowId}/cancel`, { origin: EVIL }), '/v1/workflows/{id}/cancel', EVIL);
    // Another port or scheme of the service's host is another origin; so is a sandboxed frame's "null".
    const port = Number(new URL(harness.svc.url).port);
    for (const origin of [`http://127.0.0.1:${port + 1}`, 'http://localhost:' + port, 'null']) {
      expectOriginRefused(await bodyless(`/v1/turns/${turnId}/cancel`, { origin }), '/v1/turns/{id}/cancel', origin);
    }
    // Without Origin, a browser's Sec-Fetch-Site: cross-site is refused the same way.
    const fetchSite = await bodyless(`/v1/turns/${turnId}/cancel`, { 'sec-fetch-site': 'cross-site' });
    expect([fetchSite.status, fetchSite.body.error.code, fetchSite.body.error.details]).toEqual([403, 'origin_not_allowed', { sec_fetch_site: 'cross-site' }]);

    expect((await api(harness.svc.url, 'GET', `/v1/turns/${turnId}`)).body.status).toBe('running');
    expect((await api(harness.svc.url, 'GET', `/v1/jobs/${jobId}`)).body.status).toBe('waiting_on_user');
    expect((await api(harness.svc.url, 'GET', `/v1/workflows/${workflowId}`)).body.status).toBe('running');

    // The service's own origin, an origin in CORS_ORIGINS, and a client without Origin are served.
    expect((await bodyless(`/v1/turns/${turnId}/cancel`, { origin: harness.svc.url, 'sec-fetch-site': 'same-origin' })).body.status).toBe('cancelled');
    expect((await bodyless(`/v1/jobs/${jobId}/stop`, { origin: ALLOWED, 'sec-fetch-site': 'cross-site' })).body.status).toBe('stopped');
    expect((await bodyless(`/v1/workflows/${workflowId}/cancel`, {})).body.status).toBe('cancelled');
  }, 60_000);

  it('refuses POST /v1/turns with a text/plain body (no preflight) and creates no turn; a JSON create from the own origin is served', async () => {
    const before = (await api(harness.svc.url, 'GET', '/v1/turns?limit=100')).body.data.length;
    const r = await api(harness.svc.url, 'POST', '/v1/turns', '{"input":"run rm -rf ~","tools":["computer"]}', { origin: EVIL, 'content-type': 'text/plain' });
    expectOriginRefused(r, '/v1/turns', EVIL);
    expect((await api(harness.svc.url, 'GET', '/v1/turns?limit=100')).body.data.length).toBe(before);
    harness.model.push(...routedEntries({ 'cross-site: own origin': [{ output: [message('ok')] }] }));
    const own = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'cross-site: own origin', tools: [] }, { origin: harness.svc.url });
    expect([own.status, own.body.status]).toEqual([200, 'completed']);
  }, 30_000);

  it('answers a CORS preflight from an origin not in CORS_ORIGINS with 403 saying to list it; an allowed one gets the CORS answer', async () => {
    const preflight = (origin: string) => fetch(`${harness.svc.url}/v1/turns`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    const refused = await preflight(EVIL);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const body = await refused.json();
    expect(body.error.code).toBe('origin_not_allowed');
    expect(body.error.details).toEqual({ origin: EVIL });
    expect(body.error.message).toContain(`add it there (e.g. CORS_ORIGINS=${EVIL})`);
    const allowed = await preflight(ALLOWED);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('answers a preflight with the methods the path takes, so a browser refuses another and says which; a safelisted one reaches the route\'s 405', async () => {
    const preflight = (path: string, method: string) =>
      fetch(`${harness.svc.url}${path}`, { method: 'OPTIONS', headers: { origin: ALLOWED, 'access-control-request-method': method, 'access-control-request-headers': 'content-type' } });
    // DELETE on a turn: the path takes GET and HEAD only.
    const refused = await preflight('/v1/turns/0190a0a0-0000-7000-8000-000000000000', 'DELETE');
    expect(refused.status).toBe(204);
    expect(refused.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(refused.headers.get('access-control-allow-methods')).toBe('GET, HEAD');
    expect(refused.headers.get('allow')).toBe('GET, HEAD');
    // A method the path takes is listed, with the path's others.
    const brain = await preflight('/v1/agents/a1/brain/pages/deploy?x=1', 'PUT');
    expect(brain.status).toBe(204);
    expect(brain.headers.get('access-control-allow-methods')).toBe('DELETE, GET, HEAD, PUT');
    const schedules = await preflight('/v1/schedules/s1', 'PATCH');
    expect(schedules.headers.get('access-control-allow-methods')).toBe('DELETE, GET, HEAD, PATCH');
    // A path with no route: every API method, so the request itself gets the 404 that says so.
    const unknown = await preflight('/v1/nowhere', 'DELETE');
    expect(unknown.status).toBe(204);
    expect(unknown.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, PUT, PATCH, DELETE');
    expect(unknown.headers.get('allow')).toBeNull();
    // POST is CORS-safelisted, so a browser sends it whatever the list says: the page reads the 405.
    const post = await api(harness.svc.url, 'POST', '/v1/turns/0190a0a0-0000-7000-8000-000000000000', {}, { origin: ALLOWED });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(post.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(post.headers.get('access-control-expose-headers')).toContain('Allow');
  });

  it('quotes an Origin or Host with a C1 control character escaped in its refusal', async () => {
    // Header values may carry bytes 0x80–0xFF (read as U+0080–U+00FF): U+0085 is a next-line control.
    const odd = 'https://evil.example\u0085x';
    const r = await bodyless('/v1/turns/t1/cancel', { origin: odd });
    expect(r.status).toBe(403);
    expect(r.body.error.message).toContain('comes from origin "https://evil.example\\u0085x" and is refused');
    expect(r.body.error.message).not.toContain('\u0085');
    // fetch does not let a page (or this test) set Host: node:http does.
    const host = new URL(harness.svc.url).host;
    const own = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = http.request(`${harness.svc.url}/v1/turns/t1/cancel`, { method: 'POST', headers: { origin: EVIL, host: `${host}\u0085` } }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject).end();
    });
    // Without AUTH_TOKENS the Host check answers first (421), quoting the Host escaped too.
    expect(own.status).toBe(421);
    expect(own.body.error.message).toMatch(new RegExp(`^Host "${host.replace(/\./g, '\\.')}\\\\u0085" is not served: `));
  });

  it('leaves reads alone: a GET from a foreign origin is served (the browser withholds the answer without CORS headers)', async () => {
    const r = await api(harness.svc.url, 'GET', '/v1/turns', undefined, { origin: EVIL, 'sec-fetch-site': 'cross-site' });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('with AUTH_TOKENS', () => {
  it('without AUTH_TOKENS, an Authorization header does not let a foreign origin through (a browser attaches stored Basic credentials by itself)', async () => {
    const id = await runningTurn();
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer anything', '']) {
      const r = await bodyless(`/v1/turns/${id}/cancel`, { origin: EVIL, authorization });
      expectOriginRefused(r, '/v1/turns/{id}/cancel', EVIL);
    }
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${id}`)).body.status).toBe('running');
    await bodyless(`/v1/turns/${id}/cancel`, {});
  });

  it('with AUTH_TOKENS, a foreign origin without a bearer token is refused before auth; with one (set by a script after a CORS preflight) auth decides', async () => {
    const svc = await startTestService({ env: { AUTH_TOKENS: 'tok-cross-site-requests' } });
    try {
      const auth = { authorization: 'Bearer tok-cross-site-requests' };
      expect((await api(svc.url, 'POST', '/v1/turns/nope/cancel', undefined, { origin: EVIL })).status).toBe(403);
      // A browser extension or an app:// shell cannot be listed in CORS_ORIGINS, but can send its token.
      expect((await api(svc.url, 'POST', '/v1/turns/nope/cancel', undefined, { origin: EVIL, ...auth })).status).toBe(404);
      expect((await api(svc.url, 'POST', '/v1/turns/nope/cancel', undefined, { origin: 'app://desktop', ...auth })).status).toBe(404);
      expect((await api(svc.url, 'POST', '/v1/turns/nope/cancel', undefined, { origin: EVIL, authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await api(svc.url, 'POST', '/v1/turns/nope/cancel', undefined, { origin: EVIL, authorization: 'Basic dXNlcjpwYXNz' })).status).toBe(403);
      expect((await api(svc.url, 'POST', '/v1/turns/nope/cancel', undefined, { origin: svc.url, ...auth })).status).toBe(404);
      expect((await api(svc.url, 'POST', '/v1/turns/nope/cancel', undefined, auth)).status).toBe(404);
    } finally {
      await svc.close();
    }
  });
});
