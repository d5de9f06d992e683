/**
 * Standard Webhooks deliveries of finished turns, end to end: the real service (scripted model)
 * POSTs to a loopback receiver that verifies every signature with the reference
 * `standardwebhooks` library; failures are retried with backoff, also across a restart; bad
 * targets are refused at creation.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../e2e/support/service.js';
import { parseMetrics, sampleValue } from '../support/prometheus.js';
import { validateComponent, validateResponse } from '../e2e/support/spec.js';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { routedEntries } from '../workflows/support.js';
import { startReceiver, type Receiver } from './receiver.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const env = { WEBHOOK_SECRET: SECRET, WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '150' };

let model: ScriptedResponsesServer;
let receiver: Receiver;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
  receiver = await startReceiver(SECRET);
});
afterAll(async () => {
  await receiver?.close();
  await model?.close();
});

async function withService(extra: Record<string, string>, fn: (svc: TestService) => Promise<void>, dataDir?: string) {
  const svc = await startTestService({ modelBaseURL: model.baseURL, env: { ...env, ...extra }, dataDir });
  try {
    await fn(svc);
  } finally {
    await svc.close({ keepData: dataDir !== undefined });
  }
}

const deliveriesOf = async (svc: TestService, id: string) => (await api(svc.url, 'GET', `/v1/turns/${id}/webhooks`)).body.data as any[];

describe('a turn with a webhook', () => {
  it('delivers the terminal event, signed so standardwebhooks verifies it, with the turn as GET returns it', async () => {
    await withService({}, async (svc) => {
      receiver.received.length = 0;
      model.push({ output: [message('all done')] });
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hello', webhook: { url: receiver.url } });
      expect(turn.body.status).toBe('completed');
      await expect.poll(() => receiver.received.length, { timeout: 5000 }).toBe(1);
      const got = receiver.received[0];
      expect(got.verifyError).toBeUndefined();
      expect(got.headers['webhook-id']).toMatch(/^msg_[0-9a-f-]{36}$/);
      expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(got.headers['content-type']).toBe('application/json');
      const { links: _links, ...record } = (await api(svc.url, 'GET', `/v1/turns/${turn.body.id}`)).body;
      expect(got.verified).toMatchObject({ type: 'turn.completed', data: { turn: record, event: { type: 'turn.completed', turn_id: turn.body.id, output_text: 'all done' } } });
      expect(Date.parse(got.verified.timestamp)).not.toBeNaN();
      expect(got.verified.data.turn.links).toEqual({ self: `/v1/turns/${turn.body.id}`, events: `/v1/turns/${turn.body.id}/events`, cancel: `/v1/turns/${turn.body.id}/cancel` });
      // A tampered body fails verification (the receiver really checks).
      expect(() => new Webhook(SECRET).verify(got.body.replace('all done', 'all gone'), got.headers)).toThrow();

      await expect.poll(async () => (await deliveriesOf(svc, turn.body.id))[0]?.state).toBe('delivered');
      const [d] = await deliveriesOf(svc, turn.body.id);
      expect(d).toMatchObject({ message_id: got.headers['webhook-id'], event_type: 'turn.completed', url: receiver.url, next_attempt_at: null });
      expect(d.attempts).toEqual([expect.objectContaining({ attempt: 1, status: 200, error: null })]);
      // Both shapes are the documented ones (openapi.yaml).
      expect(validateResponse('/v1/turns/{id}/webhooks', 'get', 200, (await api(svc.url, 'GET', `/v1/turns/${turn.body.id}/webhooks`)).body)).toEqual([]);
      expect(validateComponent('TurnWebhookPayload', got.verified)).toEqual([]);
    });
  });

  it('retries a receiver that fails twice: three attempts, same message id, growing backoff, then delivered', async () => {
    await withService({}, async (svc) => {
      receiver.received.length = 0;
      receiver.script.push(500, 503);
      model.push({ streamError: { code: 'server_error', message: 'boom' } });
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'fail', webhook: { url: receiver.url } });
      expect(turn.body.status).toBe('failed');
      await expect.poll(async () => (await deliveriesOf(svc, turn.body.id))[0]?.state, { timeout: 10_000 }).toBe('delivered');
      expect(receiver.received.map((r) => r.answeredWith)).toEqual([500, 503, 200]);
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      for (const r of receiver.received) expect(r.verifyError).toBeUndefined();
      expect(receiver.received[0].verified.type).toBe('turn.failed');
      const [t1, t2, t3] = receiver.received.map((r) => r.at);
      expect(t2 - t1).toBeGreaterThanOrEqual(140); // base 150 ms
      expect(t3 - t2).toBeGreaterThanOrEqual(290); // doubled
      const [d] = await deliveriesOf(svc, turn.body.id);
      expect(d.attempts.map((a: any) => [a.attempt, a.status, a.error])).toEqual([
        [1, 500, 'the receiver answered HTTP 500'],
        [2, 503, 'the receiver answered HTTP 503'],
        [3, 200, null],
      ]);
      const m = parseMetrics(await (await fetch(`${svc.url}/metrics`)).text());
      expect(sampleValue(m, 'webhook_deliveries_total', { outcome: 'retrying' })).toBe(2);
      expect(sampleValue(m, 'webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    });
  });

  it('a redirect is a failure that says redirects are not followed and names where it points; it is retried', async () => {
    await withService({}, async (svc) => {
      receiver.received.length = 0;
      receiver.script.push({ status: 302, headers: { location: 'https://user:pw@hooks.example.com/new-home' } }, { status: 308, headers: {} });
      model.push({ output: [message('moved')] });
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'x', webhook: { url: receiver.url } });
      await expect.poll(async () => (await deliveriesOf(svc, turn.body.id))[0]?.state, { timeout: 10_000 }).toBe('delivered');
      const [d] = await deliveriesOf(svc, turn.body.id);
      expect(d.attempts.map((a: any) => [a.status, a.error])).toEqual([
        [302, 'the receiver answered HTTP 302 (a redirect to "https://***@hooks.example.com/new-home"): redirects are not followed — configure the final URL as the webhook URL'],
        [308, 'the receiver answered HTTP 308 (a redirect): redirects are not followed — configure the final URL as the webhook URL'],
        [200, null],
      ]);
      expect(receiver.received).toHaveLength(3); // the redirect target was never asked
    });
  });

  it('410 Gone fails the delivery at once: no further attempt, and the error says so', async () => {
    await withService({}, async (svc) => {
      receiver.received.length = 0;
      receiver.script.push(410);
      model.push({ output: [message('gone')] });
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'x', webhook: { url: receiver.url } });
      await expect.poll(async () => (await deliveriesOf(svc, turn.body.id))[0]?.state, { timeout: 10_000 }).toBe('failed');
      const [d] = await deliveriesOf(svc, turn.body.id);
      expect(d).toMatchObject({ next_attempt_at: null, attempts: [{ attempt: 1, status: 410, error: 'the receiver answered HTTP 410 Gone: the URL no longer takes deliveries; not retried' }] });
      await new Promise((r) => setTimeout(r, 600)); // four retry delays of WEBHOOK_RETRY_BASE_MS (150 ms)
      expect(receiver.received).toHaveLength(1);
      const m = parseMetrics(await (await fetch(`${svc.url}/metrics`)).text());
      expect(sampleValue(m, 'webhook_deliveries_total', { outcome: 'failed' })).toBe(1);
    });
  });

  it('continues retrying after a restart of the service', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'turns-webhooks-'));
    try {
      receiver.received.length = 0;
      receiver.script.push(500);
      let turnId = '';
      await withService({ WEBHOOK_RETRY_BASE_MS: '1500' }, async (svc) => {
        model.push({ output: [message('before restart')] });
        turnId = (await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'x', webhook: { url: receiver.url } })).body.id;
        await expect.poll(() => receiver.received.length, { timeout: 5000 }).toBe(1);
        await expect.poll(async () => (await deliveriesOf(svc, turnId))[0]?.attempts.length).toBe(1);
      }, dataDir);
      expect(receiver.received.length).toBe(1); // the service stopped before the retry was due
      await withService({ WEBHOOK_RETRY_BASE_MS: '1500' }, async (svc) => {
        await expect.poll(async () => (await deliveriesOf(svc, turnId))[0]?.state, { timeout: 10_000 }).toBe('delivered');
        expect(receiver.received.map((r) => r.answeredWith)).toEqual([500, 200]);
        expect(receiver.received[1].headers['webhook-id']).toBe(receiver.received[0].headers['webhook-id']);
        expect((await deliveriesOf(svc, turnId))[0].attempts).toHaveLength(2);
      }, dataDir);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('never delays the turn: a receiver that does not answer leaves the turn completing at once', async () => {
    await withService({ WEBHOOK_TIMEOUT_MS: '30000' }, async (svc) => {
      receiver.received.length = 0;
      receiver.script.push('hang');
      model.push({ output: [message('quick')] });
      const t0 = Date.now();
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'x', webhook: { url: receiver.url } });
      expect(turn.body.status).toBe('completed');
      expect(Date.now() - t0).toBeLessThan(3000);
      await expect.poll(() => receiver.received.length).toBe(1);
      expect((await deliveriesOf(svc, turn.body.id))[0].state).toBe('pending');
    });
  });

  it('a receiver that does not answer holds up no other receiver: the next delivery is sent while its attempt is still open', async () => {
    const TIMEOUT = 4000;
    const fast = await startReceiver(SECRET);
    try {
      await withService({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT) }, async (svc) => {
        receiver.received.length = 0;
        receiver.script.push('hang');
        model.push({ output: [message('to the slow one')] }, { output: [message('to the fast one')] });
        const slowTurn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'slow', webhook: { url: receiver.url } });
        await expect.poll(() => receiver.received.length).toBe(1); // its attempt is open, waiting for an answer
        const fastTurn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'fast', webhook: { url: fast.url } });
        await expect.poll(() => fast.received.length, { timeout: TIMEOUT * 2 }).toBe(1);
        // The fast receiver got its delivery well before the slow attempt's timeout, and it is recorded
        // delivered while the slow attempt has no outcome yet.
        expect(fast.received[0].at - receiver.received[0].at).toBeLessThan(TIMEOUT / 2);
        await expect.poll(async () => (await deliveriesOf(svc, fastTurn.body.id))[0]?.state).toBe('delivered');
        expect((await deliveriesOf(svc, slowTurn.body.id))[0].attempts).toEqual([]);
        await expect.poll(async () => (await deliveriesOf(svc, slowTurn.body.id))[0]?.attempts.length, { timeout: TIMEOUT * 2 }).toBe(1);
        expect((await deliveriesOf(svc, slowTurn.body.id))[0].attempts[0].error).toBe(`no answer within ${TIMEOUT} ms`);
      });
    } finally {
      await fast.close();
    }
  });

  it('with WEBHOOK_SECRET_PREVIOUS every delivery is signed with both secrets: receivers on the old secret and on the new one both verify it', async () => {
    const NEW_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
    const onNew = await startReceiver(NEW_SECRET);
    try {
      // The module's receiver still verifies with SECRET (now the previous one); onNew has switched.
      await withService({ WEBHOOK_SECRET: NEW_SECRET, WEBHOOK_SECRET_PREVIOUS: SECRET, WEBHOOK_URL: onNew.url }, async (svc) => {
        receiver.received.length = 0;
        model.push({ output: [message('rotating')] });
        const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'x', webhook: { url: receiver.url } });
        await expect.poll(() => receiver.received.length + onNew.received.length).toBe(2);
        for (const got of [receiver.received[0], onNew.received[0]]) {
          expect(got.verifyError).toBeUndefined();
          expect(got.verified).toMatchObject({ type: 'turn.completed', data: { turn: { id: turn.body.id } } });
          expect(got.headers['webhook-signature'].split(' ')).toHaveLength(2);
        }
        // Each signature is the one of its secret (current first), not two copies of one.
        const [current, previous] = onNew.received[0].headers['webhook-signature'].split(' ');
        const { 'webhook-signature': _s, ...rest } = onNew.received[0].headers;
        expect(() => new Webhook(NEW_SECRET).verify(onNew.received[0].body, { ...rest, 'webhook-signature': current })).not.toThrow();
        expect(() => new Webhook(SECRET).verify(onNew.received[0].body, { ...rest, 'webhook-signature': previous })).not.toThrow();
        expect(() => new Webhook(SECRET).verify(onNew.received[0].body, { ...rest, 'webhook-signature': current })).toThrow();
      });
    } finally {
      await onNew.close();
    }
  });

  it('sends only the chosen events, and every turn to the server-wide WEBHOOK_URL', async () => {
    await withService({ WEBHOOK_URL: receiver.url.replace('/hooks/turns', '/hooks/all') }, async (svc) => {
      receiver.received.length = 0;
      model.push({ output: [message('fine')] });
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'x', webhook: { url: receiver.url, events: ['turn.failed'] } });
      expect(turn.body.status).toBe('completed');
      await expect.poll(() => receiver.received.length).toBe(1);
      const deliveries = await deliveriesOf(svc, turn.body.id);
      expect(deliveries.map((d) => d.url)).toEqual([receiver.url.replace('/hooks/turns', '/hooks/all')]);
      expect(receiver.received[0].verified.type).toBe('turn.completed');
    });
  });
});

describe('a schedule with a webhook', () => {
  it('every turn it fires delivers to the webhook; the schedule shows it and PATCH can remove it', async () => {
    await withService({ SCHEDULER_TICK_MS: '50' }, async (svc) => {
      receiver.received.length = 0;
      model.push({ output: [message('scheduled answer')] });
      const created = await api(svc.url, 'POST', '/v1/schedules', { name: 'nightly', when: { after: { value: 1, unit: 'second' } }, input: 'report', webhook: { url: receiver.url } });
      expect(created.status).toBe(201);
      expect(created.body.webhook).toEqual({ url: receiver.url });
      expect(validateResponse('/v1/schedules', 'post', 201, created.body)).toEqual([]);
      await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(1);
      const payload = receiver.received[0].verified;
      expect(payload.type).toBe('turn.completed');
      expect(payload.data.turn).toMatchObject({ kind: 'scheduled', origin: { type: 'schedule', schedule_id: created.body.id }, output_text: 'scheduled answer' });
      const patched = await api(svc.url, 'PATCH', `/v1/schedules/${created.body.id}`, { webhook: null });
      expect(patched.body.webhook).toBeNull();
      const refused = await api(svc.url, 'PATCH', `/v1/schedules/${created.body.id}`, { webhook: { url: 'http://192.168.1.1/x' } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_webhook_url');
    });
  });
});

describe('GET /v1/turns/{id}/webhooks', () => {
  it('is 404 turn not_found for an unknown turn, like the other sub-routes of a turn; [] for a turn without webhook', async () => {
    await withService({}, async (svc) => {
      const unknown = await api(svc.url, 'GET', '/v1/turns/nope/webhooks');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatchObject({ code: 'not_found' });
      expect(unknown.body.error.message).toContain('nope');
      expect(validateResponse('/v1/turns/{id}/webhooks', 'get', 404, unknown.body)).toEqual([]);
      // The same answer as another sub-route of the unknown turn.
      const approvals = await api(svc.url, 'GET', '/v1/turns/nope/approvals');
      expect(approvals.status).toBe(404);
      expect(unknown.body).toEqual(approvals.body);
      model.push({ output: [message('no hook')] });
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'no webhook here' });
      const none = await api(svc.url, 'GET', `/v1/turns/${turn.body.id}/webhooks`);
      expect(none.status).toBe(200);
      expect(none.body).toEqual({ data: [] });
    });
  });
});

describe('a workflow with a webhook', () => {
  it('delivers workflow.completed with the workflow as GET returns it; listed at GET /v1/workflows/{id}/webhooks', async () => {
    await withService({}, async (svc) => {
      receiver.received.length = 0;
      const prompt = 'find the name (webhook test)';
      model.push(...routedEntries({ [prompt]: [{ output: [functionCall('submit_result', { result: { name: 'found' } })] }] }));
      const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };
      const created = await api(svc.url, 'POST', '/v1/workflows', { title: 'hooked', tasks: [{ label: 'one', prompt, result_schema: schema }], webhook: { url: receiver.url } });
      expect(created.status).toBe(201);
      await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(1);
      const got = receiver.received[0];
      expect(got.verifyError).toBeUndefined();
      const { links: _l, ...record } = (await api(svc.url, 'GET', `/v1/workflows/${created.body.id}`)).body;
      expect(got.verified).toMatchObject({ type: 'workflow.completed', data: { workflow: record, event: { type: 'workflow.completed', workflow_id: created.body.id } } });
      expect(validateComponent('WorkflowWebhookPayload', got.verified)).toEqual([]);
      await expect.poll(async () => (await api(svc.url, 'GET', `/v1/workflows/${created.body.id}/webhooks`)).body.data[0]?.state).toBe('delivered');
      const listed = await api(svc.url, 'GET', `/v1/workflows/${created.body.id}/webhooks`);
      expect(validateResponse('/v1/workflows/{id}/webhooks', 'get', 200, listed.body)).toEqual([]);
      expect((await api(svc.url, 'GET', '/v1/workflows/nope/webhooks')).status).toBe(404);
      // Its task turns have no webhook of their own.
      const taskTurn = record.tasks?.[0]?.turn_ids?.[0] ?? got.verified.data.workflow.tasks[0].turn_ids[0];
      expect((await api(svc.url, 'GET', `/v1/turns/${taskTurn}/webhooks`)).body.data).toEqual([]);
    });
  });

  it('a refused workflow webhook is a 400 and nothing is created', async () => {
    await withService({}, async (svc) => {
      const res = await api(svc.url, 'POST', '/v1/workflows', { title: 't', tasks: [{ label: 'a', prompt: 'p', result_schema: { type: 'object', properties: {}, additionalProperties: false } }], webhook: { url: 'http://172.16.0.5/x' } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_webhook_url');
      expect((await api(svc.url, 'GET', '/v1/workflows')).body.data).toEqual([]);
    });
  });
});

describe('refused webhook targets', () => {
  it.each([
    ['/relative/path', /not an absolute URL/],
    ['ftp://example.com/hook', /scheme ftp is not allowed/],
    ['http://user:pw@example.com/hook', /user:password/],
    ['http://10.1.2.3/hook', /10\.1\.2\.3: private address/],
    ['http://[::1]:8080/hook', /::1: loopback address/],
    ['http://169.254.169.254/latest', /cloud metadata/],
    ['http://[64:ff9b:1::a9fe:a9fe]/x', /NAT64 \(local-use\) form of cloud metadata address 169\.254\.169\.254/],
    ['http://[64:ff9b:1::7f00:1]/x', /NAT64 \(local-use\) form of loopback address 127\.0\.0\.1/],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x', /Teredo form of loopback address 127\.0\.0\.1/],
  ])('%s → 400 naming the reason, and no turn is created', async (url, reason) => {
    await withService({ WEBHOOK_ALLOW_HOSTS: '' }, async (svc) => {
      const res = await api(svc.url, 'POST', '/v1/turns', { input: 'x', webhook: { url } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_webhook_url');
      expect(res.body.error.message).toMatch(reason);
      expect((await api(svc.url, 'GET', '/v1/turns')).body.data).toEqual([]);
    });
  });

  it('refuses a #fragment (never sent in a delivery) with 400 invalid_webhook_url saying to remove it, the fragment shown as #…, on turns, schedules and workflows; nothing is created', async () => {
    await withService({}, async (svc) => {
      const wf = { title: 't', tasks: [{ label: 'a', prompt: 'p', result_schema: { type: 'object', properties: {}, additionalProperties: false } }] };
      const cases: [string, Record<string, unknown>][] = [
        ['/v1/turns', { input: 'x' }],
        ['/v1/schedules', { name: 's', input: 'x', when: { after: { value: 10, unit: 'minute' } } }],
        ['/v1/workflows', wf],
      ];
      for (const [route, body] of cases) {
        const res = await api(svc.url, 'POST', route, { ...body, webhook: { url: `${receiver.url}#sig=frag-secret-8` } });
        expect(res.status, route).toBe(400);
        expect(res.body.error).toEqual({
          code: 'invalid_webhook_url',
          message: `webhook.url: must not have a #fragment (found "#" and 17 characters after it): it is never sent in a delivery, so the receiver would not see it; remove the #… part, as in ${receiver.url}`,
          details: { url: `${receiver.url}#…` },
        });
        expect(JSON.stringify(res.body)).not.toContain('frag-secret');
        expect((await api(svc.url, 'GET', route)).body.data, route).toEqual([]);
      }
      // A bare # is refused alike; without it the same URL is taken.
      const bare = await api(svc.url, 'POST', '/v1/turns', { input: 'x', webhook: { url: `${receiver.url}#` } });
      expect(bare.body.error).toMatchObject({ code: 'invalid_webhook_url', details: { url: `${receiver.url}#` } });
      expect(bare.body.error.message).toContain('found "#" and 0 characters after it');
      model.push({ output: [message('ok')] });
      expect((await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'x', webhook: { url: receiver.url } })).status).toBe(200);
    });
  });

  it('never echoes credentials in a webhook URL: responses, logs and the database show https://***@host', async () => {
    const PASSWORD = 'pw-9f3c1e77';
    const lines: string[] = [];
    const wf = { title: 't', tasks: [{ label: 'a', prompt: 'p', result_schema: { type: 'object', properties: {}, additionalProperties: false } }] };
    const svc = await startTestService({ modelBaseURL: model.baseURL, env: { ...env, LOG_LEVEL: 'trace' }, logDestination: { write: (l) => void lines.push(l) } });
    try {
      const cases: [string, Record<string, unknown>, string, string][] = [
        ['/v1/turns', { input: 'x' }, `https://alice:${PASSWORD}@hooks.example.com/turns?x=1`, 'https://***@hooks.example.com/turns?x=1'],
        ['/v1/turns', { input: 'x' }, `ftp://alice:${PASSWORD}@hooks.example.com/t`, 'ftp://***@hooks.example.com/t'],
        ['/v1/turns', { input: 'x' }, `alice:${PASSWORD}@hooks.example.com/t`, '***@hooks.example.com/t'],
        ['/v1/schedules', { name: 's', input: 'x', when: { after: { value: 10, unit: 'minute' } } }, `https://alice:${PASSWORD}@hooks.example.com/s`, 'https://***@hooks.example.com/s'],
        ['/v1/workflows', wf, `http://alice:${PASSWORD}@127.0.0.1:9/w`, 'http://***@127.0.0.1:9/w'],
      ];
      for (const [route, body, url, shown] of cases) {
        const res = await fetch(`${svc.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, webhook: { url } }) });
        const text = await res.text();
        expect(res.status, url).toBe(400);
        expect(text).not.toContain(PASSWORD);
        expect(text).not.toContain('alice');
        expect(JSON.parse(text).error).toMatchObject({ code: 'invalid_webhook_url', details: { url: shown } });
      }
      expect((await api(svc.url, 'GET', '/v1/turns')).body.data).toEqual([]);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).not.toContain(PASSWORD);
    } finally {
      await svc.close({ keepData: true });
    }
    for (const f of readdirSync(svc.dataDir).filter((n) => n.startsWith('service.db'))) {
      expect(readFileSync(path.join(svc.dataDir, f)).includes(PASSWORD), f).toBe(false);
    }
    rmSync(svc.dataDir, { recursive: true, force: true });
  });

  it('shows a stored delivery URL without its userinfo in the deliveries list', async () => {
    await withService({}, async (svc) => {
      model.push({ output: [message('done')] });
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hello' });
      // A delivery stored with credentials (not creatable over the API; e.g. a row from an older version).
      await svc.services.webhooks.store.enqueue([{ message_id: 'msg_redact', subject_type: 'turn', subject_id: turn.body.id, event_type: 'turn.completed', url: 'http://bob:pw-7d1e@127.0.0.1:9/x', payload: '{}', created_at: Date.now() }]);
      const listed = await api(svc.url, 'GET', `/v1/turns/${turn.body.id}/webhooks`);
      expect(JSON.stringify(listed.body)).not.toContain('pw-7d1e');
      expect(listed.body.data.map((d: { url: string }) => d.url)).toContain('http://***@127.0.0.1:9/x');
    });
  });

  it('loopback is refused unless WEBHOOK_ALLOW_HOSTS lists it', async () => {
    await withService({ WEBHOOK_ALLOW_HOSTS: '' }, async (svc) => {
      const res = await api(svc.url, 'POST', '/v1/turns', { input: 'x', webhook: { url: receiver.url } });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/127\.0\.0\.1: loopback address .*WEBHOOK_ALLOW_HOSTS/);
    });
  });

  it('a delivery to an address the policy refuses (a WEBHOOK_URL whose host became private) fails naming WEBHOOK_ALLOW_HOSTS', async () => {
    // The service started without the start-up check (it runs in the entry point): the state a
    // host name that resolved publicly at start and privately later leaves the dispatcher in.
    await withService({ WEBHOOK_ALLOW_HOSTS: '', WEBHOOK_URL: receiver.url, WEBHOOK_RETRY_BASE_MS: '60000' }, async (svc) => {
      receiver.received.length = 0;
      model.push({ output: [message('nowhere')] });
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'x' });
      await expect.poll(async () => (await deliveriesOf(svc, turn.body.id))[0]?.attempts.length ?? 0).toBe(1);
      const [d] = await deliveriesOf(svc, turn.body.id);
      expect(d.attempts[0]).toMatchObject({
        status: null,
        error: 'refused to deliver to 127.0.0.1: loopback address — webhooks only reach public internet addresses unless the host is listed in WEBHOOK_ALLOW_HOSTS',
      });
      expect(receiver.received).toEqual([]);
    });
  });

  it('without WEBHOOK_SECRET a webhook is refused with 503 webhooks_not_configured', async () => {
    const svc = await startTestService({ modelBaseURL: model.baseURL, env: { WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
    try {
      const res = await api(svc.url, 'POST', '/v1/turns', { input: 'x', webhook: { url: receiver.url } });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('webhooks_not_configured');
      expect(res.body.error.details).toEqual({ field: 'webhook', missing: ['WEBHOOK_SECRET'] });
    } finally {
      await svc.close();
    }
  });
});
