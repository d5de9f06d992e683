/**
 * A workflow task whose turn uses its step limit (MAX_STEPS tool rounds) without an accepted
 * submission fails with `max_steps` and is not retried: it is the task's own failure, as prose is
 * (`schema_noncompliance`), and another attempt would most likely spend the same rounds. Real
 * service on a loopback port, scripted Responses model.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { firstUserText, routedEntries, SCHEMA, type Route } from './support.js';

const harness = useScriptedService({ env: { WORKFLOW_RETRY_BASE_MS: '5', MAX_STEPS: '2' } });

const invalid = (n: number): Route => ({ output: [functionCall('submit_result', { result: { name: 'x' } }, { callId: `call_bad_${n}` })] });

async function runTask(prompt: string, steps: Route[]) {
  harness.model.push(...routedEntries({ [prompt]: steps }));
  const created = await api(harness.svc.url, 'POST', '/v1/workflows', { title: 'steps', tasks: [{ label: 'stubborn', prompt, result_schema: SCHEMA }] });
  expect(created.status).toBe(201);
  const wf = await harness.svc.services.registry.workflows!.waitForTerminal(created.body.id);
  const events = (await harness.svc.services.registry.workflows!.events.read(wf.id, 0)).map((e) => e.event);
  return { wf, events, requests: harness.model.requests.filter((r) => firstUserText(r.body) === prompt) };
}

describe('a workflow task that reaches its step limit', () => {
  it('fails max_steps after one attempt when the final answer has no text (turn.failed max_steps)', async () => {
    const { wf, events, requests } = await runTask('submits invalid results forever', [invalid(1), invalid(2), invalid(3)]);
    expect(wf.status).toBe('failed');
    expect(wf.tasks[0]).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'max_steps', message: expect.stringMatching(/step limit \(MAX_STEPS tool rounds\).*not retried/) } });
    expect(wf.tasks[0].turn_ids).toHaveLength(1);
    expect(requests).toHaveLength(3); // 2 rounds and the final answer, once
    expect(events.filter((e) => e.type === 'task.failed')).toEqual([expect.objectContaining({ attempt: 1, will_retry: false, error: expect.objectContaining({ code: 'max_steps' }) })]);
    expect(wf.summary).toBe('1 task: 1 failed (task 0 "stubborn": max_steps)');
    const turn = await api(harness.svc.url, 'GET', `/v1/turns/${wf.tasks[0].turn_ids[0]}`);
    expect(turn.body).toMatchObject({ status: 'failed', error: { code: 'max_steps' } });
  });

  it('fails max_steps, not schema_noncompliance, when the final answer after the limit is prose', async () => {
    const { wf, requests } = await runTask('submits invalid results then gives up in prose', [invalid(4), invalid(5), { output: [message('I could not make it fit.')] }]);
    expect(wf.tasks[0]).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'max_steps' } });
    expect(requests).toHaveLength(3);
    const turn = await api(harness.svc.url, 'GET', `/v1/turns/${wf.tasks[0].turn_ids[0]}`);
    expect(turn.body).toMatchObject({ status: 'completed', stop_reason: 'max_steps' });
  });
});
