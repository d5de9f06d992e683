/**
 * A cancel of a workflow stored by another instance (POST /v1/workflows/{id}/cancel sent to an
 * instance that does not drive it stores a cancel request, which the driver acts on at its next
 * lease renewal) also stops results: a task turn's submit_result after it is refused — "the task
 * is being cancelled" — and the driver cancels the workflow at once, instead of marking the task
 * succeeded (and the workflow completed) before its renewal sees the request. The real service on
 * SQLite and on Postgres, the scripted model; the other instance's request is its write through
 * the real store.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { describePostgres } from '../support/postgres.js';
import { api, useEngineService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { routedEntries, SCHEMA, waitFor } from './support.js';

function suite(engine: 'sqlite' | 'postgres'): void {
  const h = useEngineService(engine);

  it('refuses a result submitted after another instance stored a cancel, and the workflow ends cancelled', async () => {
    const agent = `stored-cancel-${engine}`;
    const prompt = `${engine}: submit after a cancel elsewhere`;
    const store = h.svc.services.stores.workflows;
    h.model.push(
      ...routedEntries({
        [prompt]: [
          async () => {
            // Another instance got POST …/cancel: it stores the request for the driver (this instance).
            const { workflows } = await store.list({ agent_id: agent });
            expect(await store.requestCancel(workflows[0].id, new Date().toISOString())).toBe(true);
            return { output: [functionCall('submit_result', { result: { name: 'x', count: 1, tags: [] } })] };
          },
          { output: [message('stopping')], delayMs: 200 },
        ],
      }),
    );
    const created = await api(h.svc.url, 'POST', '/v1/workflows', { agent_id: agent, title: 'cancelled elsewhere', tasks: [{ label: 't', prompt, result_schema: SCHEMA }] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const done = await waitFor(async () => {
      const wf = await api(h.svc.url, 'GET', `/v1/workflows/${id}`);
      return wf.body.status === 'running' ? undefined : wf.body;
    });
    expect(done).toMatchObject({ status: 'cancelled', tasks: [{ status: 'cancelled' }] });
    expect(done.tasks[0].result ?? null).toBeNull();
    const types = (await h.svc.services.workflowEvents.read(id, 0)).map((e) => e.event.type);
    expect(types).not.toContain('task.succeeded');
    expect(types.at(-1)).toBe('workflow.cancelled');
    // The task turn's submit_result failed: refused with why, or cut by the cancel it started (whichever is recorded first).
    const turnEvents = (await readSse(`${h.svc.url}/v1/turns/${done.tasks[0].turn_ids[0]}/events`)).events;
    const submit = turnEvents.find((e) => e.event === 'tool.completed' && e.json.name === 'submit_result');
    expect(submit?.json).toMatchObject({ is_error: true });
    expect(submit!.json.output).toMatch(/the task is being cancelled; no result is accepted now|the turn was cancelled while this tool call was running/);
    expect(turnEvents.at(-1)?.event).toBe('turn.cancelled');
  });
}

describe('submit_result after a cancel stored by another instance [sqlite]', () => suite('sqlite'));
describePostgres('submit_result after a cancel stored by another instance [postgres]', () => suite('postgres'));
