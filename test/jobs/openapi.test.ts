/**
 * openapi.yaml matches the background job endpoints: the job event schemas equal the ones derived
 * from the zod events, and real responses and streamed events validate against the spec.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { spec, validateComponent, validateResponse } from '../e2e/support/spec.js';
import { JOB_EVENT_TYPES, jobEventComponentName, jobEventComponents } from '../../src/jobs/event-schemas.js';
import { lastToolOutput, routedEntries, waitFor } from './support.js';

const harness = useScriptedService();

describe('openapi.yaml for background jobs', () => {
  it('documents every job SSE event with exactly the schema derived from the zod events', () => {
    for (const [name, schema] of Object.entries(jobEventComponents())) expect(spec.components.schemas[name], name).toEqual(schema);
    expect(spec.components.schemas.JobSseItem.properties.event.enum).toEqual(JOB_EVENT_TYPES);
    expect(Object.keys(spec.components.schemas.JobEvent.discriminator.mapping)).toEqual(JOB_EVENT_TYPES);
  });

  it('job responses and every streamed event validate', async () => {
    const main = 'spec: start two jobs';
    const asks = 'spec task: ask a question';
    const works = 'spec task: do some work';
    const ids: string[] = [];
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('create_background_job', { title: 'Asks', task: asks, notify: false }), functionCall('create_background_job', { title: 'Works', task: works, notify: false })] },
          (body) => {
            ids.push(...(body.input as any[]).filter((i) => i.type === 'function_call_output').map((i) => JSON.parse(i.output).job_id));
            return { output: [message('started')] };
          },
        ],
        [asks]: [{ output: [functionCall('clarify', { question: 'Which one?' })] }, { output: [message('Went with the first.')] }],
        [works]: [{ output: [functionCall('todo', { todos: [{ id: '1', content: 'work', status: 'completed' }] })] }, (body) => ({ output: [message(`worked: ${typeof lastToolOutput(body)}`)] })],
      }),
    );
    const turn = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'jobs-spec', tools: ['jobs'] });
    expect(turn.body.status).toBe('completed');
    const [asker, worker] = ids;
    const waiting = await waitFor(async () => {
      const j = (await api(harness.svc.url, 'GET', `/v1/jobs/${asker}`)).body;
      return j.status === 'waiting_on_user' ? j : undefined;
    }, 30_000);
    expect(validateResponse('/v1/jobs/{id}', 'get', 200, waiting)).toEqual([]);
    const sent = await api(harness.svc.url, 'POST', `/v1/jobs/${asker}/messages`, { message: 'the first' });
    expect(sent.status).toBe(202);
    expect(validateResponse('/v1/jobs/{id}/messages', 'post', 202, sent.body)).toEqual([]);
    for (const id of [asker, worker]) {
      const stream = await readSse(`${harness.svc.url}/v1/jobs/${id}/events`, { timeoutMs: 30_000 });
      expect(stream.events.at(-1)!.event).toBe('job.succeeded');
      for (const ev of stream.events) {
        expect(validateComponent('JobSseItem', { id: ev.id, event: ev.event, data: ev.data })).toEqual([]);
        expect(validateComponent('JobEvent', ev.json), ev.event).toEqual([]);
        expect(validateComponent(jobEventComponentName(ev.event!), ev.json), ev.event).toEqual([]);
      }
    }
    const list = await api(harness.svc.url, 'GET', '/v1/jobs?agent_id=jobs-spec&status=stop');
    expect(list.body.data.map((j: any) => j.id).sort()).toEqual([asker, worker].sort());
    expect(validateResponse('/v1/jobs', 'get', 200, list.body)).toEqual([]);
    const stopped = await api(harness.svc.url, 'POST', `/v1/jobs/${worker}/stop`);
    expect(stopped.body.status).toBe('succeeded'); // a finished job is returned unchanged
    expect(validateResponse('/v1/jobs/{id}/stop', 'post', 200, stopped.body)).toEqual([]);
    const finished = await api(harness.svc.url, 'POST', `/v1/jobs/${worker}/messages`, { message: 'more' });
    expect(finished.status).toBe(409);
    expect(finished.body.error).toMatchObject({ code: 'job_finished', details: { status: 'succeeded' } });
    expect(validateResponse('/v1/jobs/{id}/messages', 'post', 409, finished.body)).toEqual([]);
    const blank = await api(harness.svc.url, 'POST', `/v1/jobs/${worker}/messages`, { message: '  ' });
    expect(blank.status).toBe(400);
    expect(validateResponse('/v1/jobs/{id}/messages', 'post', 400, blank.body)).toEqual([]);
    expect(validateResponse('/v1/jobs/{id}', 'get', 404, (await api(harness.svc.url, 'GET', '/v1/jobs/none')).body)).toEqual([]);
    expect((await api(harness.svc.url, 'GET', '/v1/jobs?status=done')).status).toBe(400);
  }, 90_000);
});
