/**
 * openapi.yaml matches the workflow and brain endpoints: the workflow event schemas equal the ones
 * derived from the zod events, and real responses and streamed events validate against the spec.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { spec, validateComponent, validateResponse } from '../e2e/support/spec.js';
import { WORKFLOW_EVENT_TYPES, workflowEventComponentName, workflowEventComponents } from '../../src/workflows/event-schemas.js';
import { routedEntries, SCHEMA } from './support.js';

const harness = useScriptedService({ env: { WORKFLOW_RETRY_BASE_MS: '1' } });

describe('openapi.yaml for workflows and brain', () => {
  it('documents every workflow SSE event with exactly the schema derived from the zod events', () => {
    for (const [name, schema] of Object.entries(workflowEventComponents())) expect(spec.components.schemas[name], name).toEqual(schema);
    expect(spec.components.schemas.WorkflowSseItem.properties.event.enum).toEqual(WORKFLOW_EVENT_TYPES);
    expect(Object.keys(spec.components.schemas.WorkflowEvent.discriminator.mapping)).toEqual(WORKFLOW_EVENT_TYPES);
  });

  it('workflow responses and every streamed event validate', async () => {
    const ok = 'openapi ok task';
    const bad = 'openapi prose task';
    harness.model.push(
      ...routedEntries({
        [ok]: [{ output: [functionCall('submit_result', { result: { name: 'n', count: 1, tags: [] } })] }],
        [bad]: [{ output: [message('prose')] }, { output: [message('more prose')] }],
      }),
    );
    const created = await api(harness.svc.url, 'POST', '/v1/workflows', {
      title: 'spec',
      concurrency: 1,
      tasks: [ok, bad].map((p) => ({ label: p, prompt: p, result_schema: SCHEMA })),
    });
    expect(validateResponse('/v1/workflows', 'post', 201, created.body)).toEqual([]);
    const stream = await readSse(`${harness.svc.url}/v1/workflows/${created.body.id}/events`);
    expect(stream.events.map((e) => e.event)).toEqual(['workflow.started', 'task.started', 'task.succeeded', 'task.started', 'task.failed', 'workflow.failed']);
    for (const ev of stream.events) {
      expect(validateComponent('WorkflowSseItem', { id: ev.id, event: ev.event, data: ev.data })).toEqual([]);
      expect(validateComponent('WorkflowEvent', ev.json), ev.event).toEqual([]);
      expect(validateComponent(workflowEventComponentName(ev.event!), ev.json), ev.event).toEqual([]);
    }
    const got = await api(harness.svc.url, 'GET', `/v1/workflows/${created.body.id}`);
    expect(got.body.status).toBe('failed');
    expect(validateResponse('/v1/workflows/{id}', 'get', 200, got.body)).toEqual([]);
    expect(validateResponse('/v1/workflows', 'get', 200, (await api(harness.svc.url, 'GET', '/v1/workflows')).body)).toEqual([]);
    const cancelled = await api(harness.svc.url, 'POST', `/v1/workflows/${created.body.id}/cancel`);
    expect(validateResponse('/v1/workflows/{id}/cancel', 'post', 200, cancelled.body)).toEqual([]);
    const invalid = await api(harness.svc.url, 'POST', '/v1/workflows', { title: 't', tasks: [{ label: 'l', prompt: 'p', result_schema: { type: 'null' } }] });
    expect(invalid.status).toBe(400);
    expect(validateResponse('/v1/workflows', 'post', 400, invalid.body)).toEqual([]);
    expect(validateResponse('/v1/workflows/{id}', 'get', 404, (await api(harness.svc.url, 'GET', '/v1/workflows/none')).body)).toEqual([]);
  });

  it('brain responses validate', async () => {
    const p = '/v1/agents/{agent_id}/brain/pages/{slug}';
    const put = await api(harness.svc.url, 'PUT', '/v1/agents/spec/brain/pages/a', { title: 'A', markdown: 'x' });
    expect(validateResponse(p, 'put', 201, put.body)).toEqual([]);
    expect(validateResponse(p, 'put', 200, (await api(harness.svc.url, 'PUT', '/v1/agents/spec/brain/pages/a', { title: 'A', markdown: 'y' })).body)).toEqual([]);
    expect(validateResponse(p, 'get', 200, (await api(harness.svc.url, 'GET', '/v1/agents/spec/brain/pages/a')).body)).toEqual([]);
    expect(validateResponse('/v1/agents/{agent_id}/brain/pages', 'get', 200, (await api(harness.svc.url, 'GET', '/v1/agents/spec/brain/pages')).body)).toEqual([]);
    expect(validateResponse(p, 'delete', 200, (await api(harness.svc.url, 'DELETE', '/v1/agents/spec/brain/pages/a')).body)).toEqual([]);
    expect(validateResponse(p, 'get', 404, (await api(harness.svc.url, 'GET', '/v1/agents/spec/brain/pages/a')).body)).toEqual([]);
  });
});
