/**
 * Workflow task turns end to end: the real service on a loopback port, the real openai SDK against
 * the scripted Responses server, results submitted through the real submit_result tool.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { validateComponent } from '../e2e/support/spec.js';
import { firstUserText, routedEntries, SCHEMA, toolNames, toolOutputs, type Route } from './support.js';

const harness = useScriptedService({ env: { WORKFLOW_RETRY_BASE_MS: '5' } });

let n = 0;
/** A unique prompt per task so routes never collide across tests. */
const prompt = (what: string) => `${what} #${++n}`;

async function runWorkflow(tasks: { prompt: string; steps: Route[]; schema?: unknown }[], extra: Record<string, unknown> = {}) {
  const routes = Object.fromEntries(tasks.map((t) => [t.prompt, t.steps]));
  harness.model.push(...routedEntries(routes));
  const created = await api(harness.svc.url, 'POST', '/v1/workflows', {
    title: 'test workflow',
    tasks: tasks.map((t, i) => ({ label: `task ${i}`, prompt: t.prompt, result_schema: t.schema ?? SCHEMA })),
    ...extra,
  });
  expect(created.status).toBe(201);
  const wf = await harness.svc.services.registry.workflows!.waitForTerminal(created.body.id);
  return { id: created.body.id as string, wf, requestsFor: (p: string) => harness.model.requests.filter((r) => firstUserText(r.body) === p) };
}

const good = { name: 'alpha', count: 3, tags: ['x'] };

describe('workflow task turns', () => {
  it('accepts a result on the first submit and ends the task turn there', async () => {
    const p = prompt('count the widgets');
    const { wf, requestsFor } = await runWorkflow([{ prompt: p, steps: [{ output: [functionCall('submit_result', { result: good })] }] }]);
    expect(wf.status).toBe('completed');
    expect(wf.tasks[0]).toMatchObject({ status: 'succeeded', attempts: 1, result: good });
    expect(wf.tasks[0].error).toBeUndefined();
    expect(requestsFor(p)).toHaveLength(1); // terminate: no further model request
    const turn = await api(harness.svc.url, 'GET', `/v1/turns/${wf.tasks[0].turn_ids[0]}`);
    expect(turn.body).toMatchObject({
      status: 'completed',
      stop_reason: 'terminated',
      kind: 'workflow_task',
      origin: { type: 'workflow', workflow_id: wf.id, task_index: 0 },
    });
  });

  it('takes the first of two valid submissions in one response; the second shows on the task turn stream as not run', async () => {
    const p = prompt('double submitter');
    const second = { name: 'beta', count: 4, tags: [] };
    const { wf } = await runWorkflow([{
      prompt: p,
      steps: [{ output: [functionCall('submit_result', { result: good }, { callId: 'call_s1' }), functionCall('submit_result', { result: second }, { callId: 'call_s2' })] }],
    }]);
    expect(wf.tasks[0]).toMatchObject({ status: 'succeeded', result: good });
    const sse = await readSse(`${harness.svc.url}/v1/turns/${wf.tasks[0].turn_ids[0]}/events`);
    for (const ev of sse.events) expect(validateComponent('TurnEvent', ev.json), ev.event).toEqual([]);
    const calls = sse.events.filter((e) => e.event === 'tool.started' || e.event === 'tool.completed').map((e) => [e.event, e.json.call_id]);
    expect(calls).toEqual([['tool.started', 'call_s1'], ['tool.completed', 'call_s1'], ['tool.started', 'call_s2'], ['tool.completed', 'call_s2']]);
    expect(sse.events.find((e) => e.event === 'tool.completed' && e.json.call_id === 'call_s2')?.json).toMatchObject({
      label: 'Did not run submit_result', is_error: true, output: 'Error: a prior tool call already ended this turn',
    });
    expect(sse.events.at(-1)).toMatchObject({ event: 'turn.completed', json: { stop_reason: 'terminated' } });
  });

  it('offers exactly web_fetch, recall, get_page and submit_result, with submit_result built strictly from the raw schema', async () => {
    const p = prompt('catalog check');
    const { wf, requestsFor } = await runWorkflow(
      [{ prompt: p, steps: [{ output: [functionCall('submit_result', { result: good })] }] }],
      { brain: true },
    );
    expect(wf.status).toBe('completed');
    const body = requestsFor(p)[0].body;
    expect(toolNames(body)).toEqual(['get_page', 'recall', 'submit_result', 'web_fetch']);
    const submit = body.tools.find((t: { name?: string }) => t.name === 'submit_result');
    expect(submit.strict).toBe(true);
    expect(submit.parameters).toEqual({ type: 'object', properties: { result: SCHEMA }, required: ['result'], additionalProperties: false });
    expect(body.instructions).toContain(JSON.stringify(SCHEMA));
  });

  it('without brain, the catalog is web_fetch and submit_result only', async () => {
    const p = prompt('catalog without brain');
    const { requestsFor } = await runWorkflow([{ prompt: p, steps: [{ output: [functionCall('submit_result', { result: good })] }] }]);
    expect(toolNames(requestsFor(p)[0].body)).toEqual(['submit_result', 'web_fetch']);
  });

  it('rejects a wrong type, an extra property and a missing field with Error: outputs, then accepts the correction', async () => {
    const p = prompt('flaky submitter');
    const { wf, requestsFor } = await runWorkflow([
      {
        prompt: p,
        steps: [
          { output: [functionCall('submit_result', { result: { name: 'a', count: '3', tags: [] } })] },
          { output: [functionCall('submit_result', { result: { name: 'a', count: 1.5, tags: [], extra: true } })] },
          { output: [functionCall('submit_result', { result: { name: 'a', tags: [] } })] },
          { output: [functionCall('submit_result', { result: good })] },
        ],
      },
    ]);
    expect(wf.tasks[0]).toMatchObject({ status: 'succeeded', attempts: 1, result: good });
    const reqs = requestsFor(p);
    expect(reqs).toHaveLength(4);
    const outputs = toolOutputs(reqs[3].body);
    expect(outputs).toHaveLength(3);
    expect(outputs[0]).toMatch(/^Error:/);
    expect(outputs[0]).toContain('result.count: must be integer (got "3")');
    expect(outputs[1]).toContain('result.count: must be integer (got 1.5)');
    expect(outputs[1]).toContain('result: must NOT have additional property "extra"');
    expect(outputs[2]).toContain('result: missing required property "count"');
  });

  // '^(a+)+$' against 'aaa…a!' takes a backtracking engine ~25 s (the whole service frozen); RE2 is
  // linear. The timeout turns a regression into a failure.
  it('checks a catastrophic pattern and decimal multipleOf through submit_result without freezing the service', { timeout: 15000 }, async () => {
    const p = prompt('pattern submitter');
    const schema = {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^(a+)+$' }, step: { type: 'number', multipleOf: 0.1 } },
      required: ['code', 'step'],
      additionalProperties: false,
    };
    const ok = { code: 'aaaa', step: 0.3 };
    const { wf, requestsFor } = await runWorkflow([
      {
        prompt: p,
        schema,
        steps: [
          { output: [functionCall('submit_result', { result: { code: 'a'.repeat(29) + '!', step: 0.3 } })] },
          { output: [functionCall('submit_result', { result: { code: 'aaa', step: 0.35 } })] },
          { output: [functionCall('submit_result', { result: ok })] },
        ],
      },
    ]);
    expect(wf.tasks[0]).toMatchObject({ status: 'succeeded', attempts: 1, result: ok });
    const outputs = toolOutputs(requestsFor(p)[2].body);
    expect(outputs).toHaveLength(2);
    expect(outputs[0]).toMatch(/^Error:/);
    expect(outputs[0]).toContain('result.code: must match pattern "^(a+)+$"');
    expect(outputs[0]).not.toContain('result.step');
    expect(outputs[1]).toContain('result.step: must be multiple of 0.1');
    expect(outputs[1]).not.toContain('result.code');
  });

  it('answers prose with one repair instruction offering only submit_result, then takes the submission', async () => {
    const p = prompt('chatty task');
    const { wf, requestsFor } = await runWorkflow([
      {
        prompt: p,
        steps: [{ output: [message('The answer is alpha, 3.')] }, { output: [functionCall('submit_result', { result: good })] }],
      },
    ]);
    expect(wf.tasks[0]).toMatchObject({ status: 'succeeded', attempts: 1 });
    const reqs = requestsFor(p);
    expect(toolNames(reqs[0].body)).toEqual(['submit_result', 'web_fetch']);
    expect(toolNames(reqs[1].body)).toEqual(['submit_result']);
    const last = reqs[1].body.input[reqs[1].body.input.length - 1];
    expect(JSON.stringify(last)).toContain('submit_result');
  });

  it('fails with schema_noncompliance when prose comes twice, without retrying', async () => {
    const p = prompt('stubborn prose');
    const { wf, requestsFor } = await runWorkflow([
      { prompt: p, steps: [{ output: [message('Prose one.')] }, { output: [message('Prose two.')] }] },
    ]);
    expect(wf.status).toBe('failed');
    expect(wf.tasks[0]).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'schema_noncompliance' } });
    expect(wf.summary).toContain('schema_noncompliance');
    expect(requestsFor(p)).toHaveLength(2);
  });

  it('names the first 5 failed tasks in the summary and says how many more failed', async () => {
    const prompts = Array.from({ length: 7 }, (_, i) => prompt(`prose only ${i}`));
    const { wf } = await runWorkflow(prompts.map((p) => ({ prompt: p, steps: [{ output: [message('Prose.')] }, { output: [message('More prose.')] }] })));
    expect(wf.status).toBe('failed');
    const named = Array.from({ length: 5 }, (_, i) => `task ${i} "task ${i}": schema_noncompliance`).join('; ');
    expect(wf.summary).toBe(`7 tasks: 7 failed (${named}; and 2 more)`);
    const got = await api(harness.svc.url, 'GET', `/v1/workflows/${wf.id}`);
    expect(got.body.summary).toBe(wf.summary);
  });

  it('retries a task whose model produced no text at all (empty_output), and the retry succeeds', async () => {
    const p = prompt('silent task');
    const { id, wf } = await runWorkflow([
      { prompt: p, steps: [{ output: [] }, { output: [functionCall('submit_result', { result: good })] }] },
    ]);
    expect(wf.tasks[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(wf.tasks[0].turn_ids).toHaveLength(2);
    const events = await harness.svc.services.registry.workflows!.events.read(id, 0);
    const failed = events.find((e) => e.event.type === 'task.failed')!.event;
    expect(failed).toMatchObject({ error: { code: 'empty_output' }, will_retry: true, attempt: 1 });
  });

  it('retries model errors at most 3 attempts, then fails the task with the provider error', async () => {
    const p = prompt('broken model');
    const err = { streamError: { code: 'server_error', message: 'upstream exploded' } };
    const { wf } = await runWorkflow([{ prompt: p, steps: [err, err, err] }]);
    expect(wf.status).toBe('failed');
    expect(wf.tasks[0]).toMatchObject({ status: 'failed', attempts: 3, error: { code: 'server_error' } });
    expect(wf.tasks[0].turn_ids).toHaveLength(3);
  });

  it('recovers from one model error by retrying', async () => {
    const p = prompt('one hiccup');
    const { wf } = await runWorkflow([
      { prompt: p, steps: [{ streamError: { code: 'server_error', message: 'hiccup' } }, { output: [functionCall('submit_result', { result: good })] }] },
    ]);
    expect(wf.tasks[0]).toMatchObject({ status: 'succeeded', attempts: 2, result: good });
  });
});
