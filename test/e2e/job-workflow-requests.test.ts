/**
 * What the job and workflow control routes accept, through the real server and a scripted model:
 * POST /v1/jobs/{id}/stop and POST /v1/workflows/{id}/cancel take no fields (like POST
 * /v1/turns/{id}/cancel), and their event routes serve only text/event-stream (406 otherwise).
 */
import { describe, expect, it } from 'vitest';
import { api, useScriptedService } from './support/service.js';
import { readSse } from './support/sse-client.js';
import { validateResponse } from './support/spec.js';
import { heldWork } from './support/held-work.js';
import { SCHEMA } from '../workflows/support.js';

const harness = useScriptedService();

const { waitingJob, runningWorkflow } = heldWork(harness, 'requests', 'job-requests');

describe('POST /v1/jobs/{id}/stop body', () => {
  it('refuses unknown fields with 400 invalid_request naming the field and saying the route takes none; the job is not stopped', async () => {
    const id = await waitingJob();
    const r = await api(harness.svc.url, 'POST', `/v1/jobs/${id}/stop`, { reason: 'x' });
    expect(r.status).toBe(400);
    expect(validateResponse('/v1/jobs/{id}/stop', 'post', 400, r.body)).toEqual([]);
    expect(r.body.error).toEqual({
      code: 'invalid_request',
      message: 'the request body has unknown field "reason": stop takes no fields; send no body or {}',
      details: [{ path: '', code: 'unrecognized_keys', message: 'has unknown field "reason": stop takes no fields; send no body or {}' }],
    });
    const two = await api(harness.svc.url, 'POST', `/v1/jobs/${id}/stop`, { reason: 'x', force: true });
    expect(two.body.error.message).toBe('the request body has unknown fields "reason", "force": stop takes no fields; send no body or {}');
    const notObject = await api(harness.svc.url, 'POST', `/v1/jobs/${id}/stop`, ['x']);
    expect(notObject.status).toBe(400);
    expect(notObject.body.error).toMatchObject({ code: 'invalid_request', message: 'the request body must be {} or absent: stop takes no fields; send no body or {}' });
    expect((await api(harness.svc.url, 'GET', `/v1/jobs/${id}`)).body.status).toBe('waiting_on_user');

    const stopped = await api(harness.svc.url, 'POST', `/v1/jobs/${id}/stop`, {});
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ id, status: 'stopped' });
    const again = await api(harness.svc.url, 'POST', `/v1/jobs/${id}/stop`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id, status: 'stopped', finished_at: stopped.body.finished_at });
  }, 60_000);

  it('answers 404 for an unknown job whatever the body', async () => {
    expect((await api(harness.svc.url, 'POST', '/v1/jobs/nope/stop')).status).toBe(404);
  });

  it('takes an empty body sent with Content-Type: application/json as no body, and refuses a JSON null; so does workflow cancel', async () => {
    for (const path of ['/v1/jobs/nope/stop', '/v1/workflows/nope/cancel']) {
      const empty = await api(harness.svc.url, 'POST', path, '', { 'content-type': 'application/json' });
      expect(empty.status).toBe(404);
      expect(empty.body.error.code).toBe('not_found');
      const nul = await api(harness.svc.url, 'POST', path, 'null');
      expect(nul.status).toBe(400);
      expect(nul.body.error.message).toMatch(/^the request body must be \{\} or absent: (stop|cancel) takes no fields; send no body or \{\}$/);
    }
  });
});

describe('POST /v1/workflows body', () => {
  it('reads null for an optional field as the field left out, and refuses null for a required one', async () => {
    const id = await runningWorkflow({ agent_id: null, concurrency: null, brain: null, model: null, webhook: null });
    expect((await api(harness.svc.url, 'GET', `/v1/workflows/${id}`)).body).toMatchObject({ id, agent_id: 'default', status: 'running' });
    expect((await api(harness.svc.url, 'POST', `/v1/workflows/${id}/cancel`)).status).toBe(200);
    const noTitle = await api(harness.svc.url, 'POST', '/v1/workflows', { title: null, tasks: [{ label: 'l', prompt: 'p', result_schema: SCHEMA }] });
    expect(noTitle.status).toBe(400);
    expect(noTitle.body.error.details).toMatchObject([{ path: 'title', code: 'invalid_type' }]);
  }, 60_000);
});

describe('POST /v1/workflows/{id}/cancel body', () => {
  it('refuses unknown fields with 400 invalid_request naming the field and saying the route takes none; the workflow keeps running', async () => {
    const id = await runningWorkflow();
    const r = await api(harness.svc.url, 'POST', `/v1/workflows/${id}/cancel`, { reason: 'x' });
    expect(r.status).toBe(400);
    expect(validateResponse('/v1/workflows/{id}/cancel', 'post', 400, r.body)).toEqual([]);
    expect(r.body.error).toEqual({
      code: 'invalid_request',
      message: 'the request body has unknown field "reason": cancel takes no fields; send no body or {}',
      details: [{ path: '', code: 'unrecognized_keys', message: 'has unknown field "reason": cancel takes no fields; send no body or {}' }],
    });
    const notObject = await api(harness.svc.url, 'POST', `/v1/workflows/${id}/cancel`, '"x"');
    expect(notObject.status).toBe(400);
    expect(notObject.body.error).toMatchObject({ code: 'invalid_request', message: 'the request body must be {} or absent: cancel takes no fields; send no body or {}' });
    expect((await api(harness.svc.url, 'GET', `/v1/workflows/${id}`)).body.status).toBe('running');

    const cancelled = await api(harness.svc.url, 'POST', `/v1/workflows/${id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id, status: 'cancelled' });
    const again = await api(harness.svc.url, 'POST', `/v1/workflows/${id}/cancel`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id, status: 'cancelled', completed_at: cancelled.body.completed_at });
  }, 60_000);
});

describe('event routes of jobs and workflows: Accept', () => {
  it('answer 406 to a client that accepts only JSON, naming what the route serves and where the JSON record is', async () => {
    const jobId = await waitingJob();
    await api(harness.svc.url, 'POST', `/v1/jobs/${jobId}/stop`);
    const wfId = await runningWorkflow();
    await api(harness.svc.url, 'POST', `/v1/workflows/${wfId}/cancel`);
    const cases = [
      { route: '/v1/jobs/{id}/events', self: `/v1/jobs/${jobId}`, what: "the job's events as SSE", record: 'the job' },
      { route: '/v1/workflows/{id}/events', self: `/v1/workflows/${wfId}`, what: "the workflow's events as SSE", record: 'the workflow' },
    ];
    for (const c of cases) {
      for (const accept of ['application/json', 'application/json, text/html', 'text/event-stream;q=0, application/json']) {
        const r = await api(harness.svc.url, 'GET', `${c.self}/events`, undefined, { accept });
        expect(r.status, `${c.route} ${accept}`).toBe(406);
        expect(r.headers.get('content-type')).toMatch(/^application\/json/);
        expect(validateResponse(c.route, 'get', 406, r.body)).toEqual([]);
        expect(r.body.error).toEqual({
          code: 'not_acceptable',
          message: `GET ${c.self}/events serves only text/event-stream (${c.what}); send Accept: text/event-stream, or read ${c.record} as JSON with GET ${c.self}`,
          details: { accept, served: ['text/event-stream'] },
        });
      }
    }
    // An unknown id is still 404, whatever Accept says.
    expect((await api(harness.svc.url, 'GET', '/v1/jobs/nope/events', undefined, { accept: 'application/json' })).status).toBe(404);
    expect((await api(harness.svc.url, 'GET', '/v1/workflows/nope/events', undefined, { accept: 'application/json' })).status).toBe(404);
  }, 90_000);

  it('stream for text/event-stream, */*, text/* and no Accept', async () => {
    const jobId = await waitingJob();
    await api(harness.svc.url, 'POST', `/v1/jobs/${jobId}/stop`);
    const wfId = await runningWorkflow();
    await api(harness.svc.url, 'POST', `/v1/workflows/${wfId}/cancel`);
    for (const [url, last] of [
      [`/v1/jobs/${jobId}/events`, 'event: job.stopped'],
      [`/v1/workflows/${wfId}/events`, 'event: workflow.cancelled'],
    ]) {
      for (const accept of ['text/event-stream', '*/*', 'text/*', 'application/json;q=0.9, text/event-stream;q=0.1', undefined]) {
        const res = await fetch(`${harness.svc.url}${url}`, { headers: accept === undefined ? {} : { accept } });
        expect(res.status, `${url} ${accept}`).toBe(200);
        expect(res.headers.get('content-type'), accept).toMatch(/^text\/event-stream/);
        expect(await res.text()).toContain(last);
      }
    }
    // readSse (an EventSource-like client) still reads them.
    expect((await readSse(`${harness.svc.url}/v1/jobs/${jobId}/events`)).events.at(-1)!.event).toBe('job.stopped');
  }, 90_000);
});

describe('cancel and stop bodies the parser refuses', () => {
  const routes = [
    ['/v1/turns/{id}/cancel', '/v1/turns/nope/cancel'],
    ['/v1/jobs/{id}/stop', '/v1/jobs/nope/stop'],
    ['/v1/workflows/{id}/cancel', '/v1/workflows/nope/cancel'],
    ['/v1/turns/{id}/approvals', '/v1/turns/nope/approvals'],
  ] as const;
  it('answer 413 for a body over BODY_LIMIT_BYTES and 415 for one that is not JSON, as openapi.yaml documents', async () => {
    const limit = harness.svc.services.config.BODY_LIMIT_BYTES;
    for (const [spec, path] of routes) {
      const big = await api(harness.svc.url, 'POST', path, JSON.stringify({ x: 'y'.repeat(limit) }));
      expect(big.status).toBe(413);
      expect(big.body.error.code).toBe('body_too_large');
      expect(validateResponse(spec, 'post', 413, big.body)).toEqual([]);
      const text = await api(harness.svc.url, 'POST', path, 'hello', { 'content-type': 'text/plain' });
      expect(text.status).toBe(415);
      expect(text.body.error.code).toBe('unsupported_media_type');
      expect(validateResponse(spec, 'post', 415, text.body)).toEqual([]);
    }
  });
});
