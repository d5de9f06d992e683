/**
 * A webhook's `events` may name only events that can fire for its subject: `turn.*` (and the
 * `job.waiting_on_*` of the jobs it creates) for a turn
 * and for the turns a schedule fires, `workflow.*` for a workflow. Any other type is refused at
 * creation with a 400 naming the accepted ones, and nothing is created (real service, loopback).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../e2e/support/service.js';
import { message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { startReceiver, type Receiver } from './receiver.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
let HOOK: string;
let model: ScriptedResponsesServer;
let receiver: Receiver;
let svc: TestService;
beforeAll(async () => {
  model = await startScriptedResponsesServer();
  receiver = await startReceiver(SECRET);
  HOOK = receiver.url;
  svc = await startTestService({ modelBaseURL: model.baseURL, env: { WEBHOOK_SECRET: SECRET, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
});
afterAll(async () => {
  await svc?.close();
  await receiver?.close();
  await model?.close();
});

const TURN_EVENTS = 'turn.completed|turn.failed|turn.cancelled|job.waiting_on_user|job.waiting_on_approval';
const WORKFLOW_EVENTS = 'workflow.completed|workflow.failed|workflow.cancelled';
const task = { label: 'a', prompt: 'p', result_schema: { type: 'object', properties: {}, additionalProperties: false } };

it('a turn webhook with a workflow event is a 400 naming the turn events, and no turn is created', async () => {
  const res = await api(svc.url, 'POST', '/v1/turns', { input: 'x', webhook: { url: HOOK, events: ['turn.completed', 'workflow.completed'] } });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('invalid_request');
  expect(res.body.error.message).toBe(`webhook.events[1] must be one of ${TURN_EVENTS} (the events a turn webhook can have), got "workflow.completed"`);
  expect(res.body.error.details).toEqual([expect.objectContaining({ path: 'webhook.events[1]', message: expect.stringContaining(TURN_EVENTS) })]);
  expect((await api(svc.url, 'GET', '/v1/turns')).body.data).toEqual([]);
});

it('a webhook whose events repeat a type or are empty is a 400 that names the path once, then what is wrong', async () => {
  const repeated = await api(svc.url, 'POST', '/v1/turns', { input: 'x', webhook: { url: HOOK, events: ['turn.failed', 'turn.completed', 'turn.failed'] } });
  expect(repeated.status).toBe(400);
  expect(repeated.body.error.message).toBe('webhook.events must not repeat a type, got "turn.failed" more than once');
  expect(repeated.body.error.details).toEqual([{ path: 'webhook.events', code: 'custom', message: 'must not repeat a type, got "turn.failed" more than once' }]);
  const empty = await api(svc.url, 'POST', '/v1/workflows', { title: 't', tasks: [task], webhook: { url: HOOK, events: [] } });
  expect(empty.status).toBe(400);
  expect(empty.body.error.message).toBe('webhook.events must not be empty: give at least 1 item');
  expect((await api(svc.url, 'GET', '/v1/turns')).body.data).toEqual([]);
});

it('a schedule webhook (for the turns it fires) with a workflow event is a 400 on create and on PATCH', async () => {
  const base = { name: 'hooked', when: { after: { value: 1, unit: 'hour' } }, input: 'report' };
  const refused = await api(svc.url, 'POST', '/v1/schedules', { ...base, webhook: { url: HOOK, events: ['workflow.failed'] } });
  expect(refused.status).toBe(400);
  expect(refused.body.error.details[0]).toMatchObject({ path: 'webhook.events[0]', message: expect.stringContaining(TURN_EVENTS) });
  expect((await api(svc.url, 'GET', '/v1/schedules')).body.data).toEqual([]);
  const created = await api(svc.url, 'POST', '/v1/schedules', { ...base, webhook: { url: HOOK, events: ['turn.failed'] } });
  expect(created.status).toBe(201);
  const patched = await api(svc.url, 'PATCH', `/v1/schedules/${created.body.id}`, { webhook: { url: HOOK, events: ['workflow.cancelled'] } });
  expect(patched.status).toBe(400);
  expect(patched.body.error.message).toContain(`the events a turn webhook can have`);
  expect((await api(svc.url, 'GET', `/v1/schedules/${created.body.id}`)).body.webhook).toEqual({ url: HOOK, events: ['turn.failed'] });
});

it('a workflow webhook with a turn event is a 400 naming the workflow events, and no workflow is created', async () => {
  const res = await api(svc.url, 'POST', '/v1/workflows', { title: 't', tasks: [task], webhook: { url: HOOK, events: ['turn.completed'] } });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('invalid_request');
  expect(res.body.error.message).toBe(`webhook.events[0] must be one of ${WORKFLOW_EVENTS} (the events a workflow webhook can have), got "turn.completed"`);
  expect((await api(svc.url, 'GET', '/v1/workflows')).body.data).toEqual([]);
});

it('a turn webhook with its own events is accepted and delivered', async () => {
  model.push({ output: [message('done')] });
  const res = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'x', webhook: { url: HOOK, events: ['turn.completed', 'turn.cancelled'] } });
  expect(res.body.status).toBe('completed');
  await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(1);
  expect(receiver.received[0].verified).toMatchObject({ type: 'turn.completed', data: { turn: { id: res.body.id } } });
});
