/**
 * Stream tokens of job streams: a job's `links.events` token opens only GET /v1/jobs/{id}/events of
 * that job over the real server with AUTH_TOKENS — not another job's stream, not a turn's, and a
 * turn's token does not open a job stream.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { lastToolOutput, routedEntries, waitFor } from './support.js';

const BEARER = 'job-stream-token-bearer';
const AUTH = { authorization: `Bearer ${BEARER}` };
const harness = useScriptedService({ env: { AUTH_TOKENS: BEARER } });

describe('job stream tokens', () => {
  it("open only their own job's events", async () => {
    const main = 'tokens: start two jobs';
    const tasks = ['tokens task one', 'tokens task two'];
    const ids: string[] = [];
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: tasks.map((task, i) => functionCall('create_background_job', { title: `T${i}`, task, notify: false })) },
          (body) => {
            ids.push(...(body.input as any[]).filter((i) => i.type === 'function_call_output').map((i) => JSON.parse(i.output).job_id));
            return { output: [message('ok')] };
          },
        ],
        [tasks[0]]: [{ output: [message('one done')] }],
        [tasks[1]]: [{ output: [message('two done')] }],
      }),
    );
    const turn = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, tools: ['jobs'] }, AUTH);
    expect(turn.body.status).toBe('completed');
    await waitFor(async () => ((await api(harness.svc.url, 'GET', `/v1/jobs/${ids[1]}`, undefined, AUTH)).body.status === 'succeeded' ? true : undefined), 30_000);
    const [one, two] = await Promise.all(ids.map(async (id) => (await api(harness.svc.url, 'GET', `/v1/jobs/${id}`, undefined, AUTH)).body));
    const tokenOf = (link: string) => new URL(link, 'http://x').searchParams.get('stream_token')!;
    expect(tokenOf(one.links.events)).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);
    const open = await fetch(`${harness.svc.url}${one.links.events}`);
    expect(open.status).toBe(200);
    expect(await open.text()).toContain('event: job.succeeded');
    const other = await api(harness.svc.url, 'GET', `/v1/jobs/${two.id}/events?stream_token=${encodeURIComponent(tokenOf(one.links.events))}`);
    expect(other.status).toBe(401);
    expect(other.body.error.code).toBe('invalid_stream_token');
    const turnToken = tokenOf((await api(harness.svc.url, 'GET', `/v1/turns/${turn.body.id}`, undefined, AUTH)).body.links.events);
    expect((await api(harness.svc.url, 'GET', `/v1/jobs/${one.id}/events?stream_token=${encodeURIComponent(turnToken)}`)).status).toBe(401);
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${turn.body.id}/events?stream_token=${encodeURIComponent(tokenOf(one.links.events))}`)).status).toBe(401);
    expect((await api(harness.svc.url, 'GET', `/v1/jobs/${one.id}?stream_token=${encodeURIComponent(tokenOf(one.links.events))}`)).status).toBe(401); // only the stream
  }, 60_000);
});
