/**
 * Workflows over REST and from a main turn: creation checks, concurrency limits, cancel, the SSE
 * event stream, and a main turn that starts a workflow and reads it back with workflow_get.
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { validateResponse } from '../e2e/support/spec.js';
import { firstUserText, routedEntries, SCHEMA, toolOutputs, waitFor, type Route } from './support.js';
import type { WorkflowEvent } from '../../src/workflows/events.js';
import type { LoggedEvent } from '../../src/store/event-log.js';
import { encodeQueryCursor } from '../../src/list-cursor.js';

const harness = useScriptedService({
  env: { WORKFLOW_RETRY_BASE_MS: '5', WORKFLOW_MAX_RUNNING_TASKS_PER_AGENT: '3', WORKFLOW_MAX_TASKS: '6' },
});

const workflows = () => harness.svc.services.registry.workflows!;
let n = 0;
const prompt = (what: string) => `${what} #${++n}`;
const good = { name: 'x', count: 1, tags: [] };
/** A slow submission: each streamed event waits `ms`. */
const slowSubmit = (ms: number): Route => ({ output: [functionCall('submit_result', { result: good })], delayMs: ms });

/** Highest number of tasks running at once, replayed from task.started / terminal task events. */
function maxConcurrent(events: LoggedEvent<WorkflowEvent>[]): number {
  let running = 0;
  let max = 0;
  for (const { event } of events) {
    if (event.type === 'task.started') running++;
    if (event.type === 'task.succeeded' || event.type === 'task.failed' || event.type === 'task.cancelled') running--;
    max = Math.max(max, running);
  }
  return max;
}

const task = (p: string, schema: unknown = SCHEMA) => ({ label: p, prompt: p, result_schema: schema });

describe('POST /v1/workflows', () => {
  it('rejects result schemas outside the subset with 400, one {path, code, message} detail per violation, the message naming the first', async () => {
    const r = await api(harness.svc.url, 'POST', '/v1/workflows', {
      title: 'bad',
      tasks: [
        task('a', { type: 'object', properties: { v: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }, required: ['v'], additionalProperties: false }),
        task('b', { type: 'object', additionalProperties: { type: 'string' } }),
        task('c', { type: 'object', properties: { v: { type: 'string' } }, required: ['v'] }),
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_workflow');
    const details: { path: string; code: string; message: string }[] = r.body.error.details;
    expect(details[0]).toEqual({ path: 'tasks[0].result_schema.properties.v.type', code: 'unsupported_schema', message: 'missing; use one of object, array, string, number, integer, boolean' });
    expect(details).toContainEqual({ path: 'tasks[0].result_schema.properties.v.anyOf', code: 'unsupported_schema', message: '"anyOf" is not allowed (one plain type per node)' });
    expect(details).toContainEqual({ path: 'tasks[1].result_schema.additionalProperties', code: 'unsupported_schema', message: expect.stringMatching(/^must be false — /) });
    expect(details).toContainEqual({ path: 'tasks[2].result_schema.additionalProperties', code: 'unsupported_schema', message: expect.stringMatching(/^must be false \(missing\)/) });
    expect(r.body.error.message).toBe(
      `invalid workflow: tasks[0].result_schema.properties.v.type: missing; use one of object, array, string, number, integer, boolean (and ${details.length - 1} more problems: see details)`,
    );
    expect((await api(harness.svc.url, 'GET', '/v1/workflows?status=live')).body.data.filter((w: { title: string }) => w.title === 'bad')).toEqual([]);
  });

  it('rejects a result_schema pattern RE2 cannot run (lookahead) with 400 saying why', async () => {
    const r = await api(harness.svc.url, 'POST', '/v1/workflows', {
      title: 'lookahead',
      tasks: [task('p', { type: 'object', properties: { code: { type: 'string', pattern: '^(?=.*\\d)[a-z0-9]+$' } }, required: ['code'], additionalProperties: false })],
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_workflow');
    expect(r.body.error.details).toEqual([{ path: 'tasks[0].result_schema.properties.code.pattern', code: 'unsupported_schema', message: expect.stringMatching(/^not supported: .*no lookahead/) }]);
    expect(r.body.error.message).toBe(`invalid workflow: tasks[0].result_schema.properties.code.pattern: ${r.body.error.details[0].message}`);
  });

  it('enforces WORKFLOW_MAX_TASKS, the concurrency range and unknown fields', async () => {
    const seven = Array.from({ length: 7 }, (_, i) => task(`t${i}`));
    const tooMany = await api(harness.svc.url, 'POST', '/v1/workflows', { title: 'many', tasks: seven });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toEqual({
      code: 'invalid_workflow',
      message: 'invalid workflow: tasks must have at most 6 tasks (WORKFLOW_MAX_TASKS), got 7',
      details: [{ path: 'tasks', code: 'too_big', message: 'must have at most 6 tasks (WORKFLOW_MAX_TASKS), got 7' }],
    });
    const conc = await api(harness.svc.url, 'POST', '/v1/workflows', { title: 'c', tasks: [task('t')], concurrency: 33 });
    expect(conc.status).toBe(400);
    const unknown = await api(harness.svc.url, 'POST', '/v1/workflows', { title: 'c', tasks: [task('t')], nested: true });
    expect(unknown.status).toBe(400);
    expect((await api(harness.svc.url, 'GET', '/v1/workflows/nope')).status).toBe(404);
  });
});

describe('POST /v1/workflows: title and task labels', () => {
  const unsafe = (noun: string, found: string) => `must not contain ${found}: no control characters, line or paragraph separators, invisible characters or bidirectional controls are allowed; send the ${noun} as one line of plain text without them`;

  it('refuses a title or label with a bidi control, a control character or no visible character with 400 invalid_workflow naming each', async () => {
    const r = await api(harness.svc.url, 'POST', '/v1/workflows', {
      title: 'a\u202Eb',
      tasks: [task('ok'), { ...task('x'), label: 'a\u202Eb' }, { ...task('y'), label: 'one\u0085two' }, { ...task('z'), label: '\u2800' }],
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_workflow');
    expect(r.body.error.details).toEqual([
      { path: 'title', code: 'invalid_format', message: unsafe('title', 'U+202E (a bidirectional control), found at character 2') },
      { path: 'tasks[1].label', code: 'invalid_format', message: unsafe('label', 'U+202E (a bidirectional control), found at character 2') },
      { path: 'tasks[2].label', code: 'invalid_format', message: unsafe('label', 'U+0085 (a control character), found at character 4') },
      { path: 'tasks[3].label', code: 'too_small', message: 'must have a visible character, not only whitespace or invisible characters (found U+2800): send a short label in words' },
    ]);
    expect(r.body.error.message).toBe(`invalid workflow: title ${unsafe('title', 'U+202E (a bidirectional control), found at character 2')} (and 3 more problems: see details)`);
    const blank = await api(harness.svc.url, 'POST', '/v1/workflows', { title: '\u2800', tasks: [task('ok')] });
    expect(blank.body.error.details).toEqual([
      { path: 'title', code: 'too_small', message: 'must have a visible character, not only whitespace or invisible characters (found U+2800): send a short title in words' },
    ]);
  });

  it('answers an empty title or label and one of only spaces alike: 400 invalid_workflow saying to send a short title (label) in words', async () => {
    for (const empty of ['', '  ']) {
      const r = await api(harness.svc.url, 'POST', '/v1/workflows', { title: empty, tasks: [{ ...task('x'), label: empty }] });
      expect(r.status, JSON.stringify(empty)).toBe(400);
      expect(r.body.error, JSON.stringify(empty)).toEqual({
        code: 'invalid_workflow',
        message: 'invalid workflow: title must not be empty or only whitespace: send a short title in words (and 1 more problem: see details)',
        details: [
          { path: 'title', code: 'too_small', message: 'must not be empty or only whitespace: send a short title in words' },
          { path: 'tasks[0].label', code: 'too_small', message: 'must not be empty or only whitespace: send a short label in words' },
        ],
      });
      expect(validateResponse('/v1/workflows', 'post', 400, r.body)).toEqual([]);
    }
  });

  it('counts a title and a label in characters (code points, an emoji counts 1): 200 astral characters are accepted, 201 refused with invalid_workflow as a prompt over its limit is, over REST and in workflow_start', async () => {
    const p0 = prompt('astral');
    harness.model.push(...routedEntries({ [p0]: [{ output: [message('late')], holdMs: 20_000 }] }));
    const title = '😀'.repeat(200);
    const label = '𝒳'.repeat(200);
    const ok = await api(harness.svc.url, 'POST', '/v1/workflows', { title, tasks: [{ ...task(p0), label }] });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ title, tasks: [{ label }] });
    expect((await api(harness.svc.url, 'POST', `/v1/workflows/${ok.body.id}/cancel`)).body.status).toBe('cancelled');

    const over = await api(harness.svc.url, 'POST', '/v1/workflows', { title: `${title}😀`, tasks: [{ ...task('x'), label: `${label}𝒳`, prompt: 'p'.repeat(32_001) }] });
    expect(over.status).toBe(400);
    // A title or label over the limit is a workflow rule, refused as a prompt over its limit is (invalid_workflow).
    expect(over.body.error.code).toBe('invalid_workflow');
    expect(over.body.error.details).toEqual([
      { path: 'title', code: 'too_big', message: 'must be at most 200 characters long, got 201' },
      { path: 'tasks[0].label', code: 'too_big', message: 'must be at most 200 characters long, got 201' },
      { path: 'tasks[0].prompt', code: 'too_big', message: 'must be at most 32000 characters long, got 32001' },
    ]);

    const [main, p1] = [prompt('astral start'), prompt('astral task')];
    harness.model.push(
      ...routedEntries({
        [main]: [{ output: [functionCall('workflow_start', { title, tasks: [{ ...task(p1), label }] })] }, { output: [message('ok')] }],
        [p1]: [{ output: [message('late')], holdMs: 20_000 }],
      }),
    );
    expect((await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'astral', tools: ['workflow'] })).body.status).toBe('completed');
    const out = toolOutputs(harness.model.requests.filter((q) => q.body.input[0]?.content === main).at(-1)!.body)[0];
    expect(out).toMatch(/^Started workflow /);
    const started = (await api(harness.svc.url, 'GET', '/v1/workflows?agent_id=astral')).body.data;
    expect(started.map((w: { title: string }) => w.title)).toEqual([title]);
    expect((await api(harness.svc.url, 'POST', `/v1/workflows/${started[0].id}/cancel`)).body.status).toBe('cancelled');
  });

  it('refuses a byte order mark U+FEFF in a title or label as an invisible character, not as empty, even at either end', async () => {
    const r = await api(harness.svc.url, 'POST', '/v1/workflows', { title: '\uFEFF', tasks: [{ ...task('x'), label: ' \uFEFFx' }] });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([
      { path: 'title', code: 'invalid_format', message: unsafe('title', 'U+FEFF (an invisible character), found at character 1') },
      { path: 'tasks[0].label', code: 'invalid_format', message: unsafe('label', 'U+FEFF (an invisible character), found at character 2') },
    ]);
  });
});

describe('running workflows', () => {
  it('never runs more tasks at once than the workflow concurrency', async () => {
    const prompts = Array.from({ length: 5 }, () => prompt('concurrency'));
    harness.model.push(...routedEntries(Object.fromEntries(prompts.map((p) => [p, [slowSubmit(8)]]))));
    const r = await api(harness.svc.url, 'POST', '/v1/workflows', { title: 'conc', concurrency: 2, tasks: prompts.map((p) => task(p)) });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: 'running', concurrency: 2, links: { events: `/v1/workflows/${r.body.id}/events` } });
    const wf = await workflows().waitForTerminal(r.body.id);
    expect(wf.status).toBe('completed');
    expect(wf.tasks.every((t) => t.status === 'succeeded')).toBe(true);
    expect(maxConcurrent(await workflows().events.read(wf.id, 0))).toBe(2);
  });

  it('never runs more task turns per agent than WORKFLOW_MAX_RUNNING_TASKS_PER_AGENT across workflows', async () => {
    const a = Array.from({ length: 3 }, () => prompt('agent cap a'));
    const b = Array.from({ length: 3 }, () => prompt('agent cap b'));
    harness.model.push(...routedEntries(Object.fromEntries([...a, ...b].map((p) => [p, [slowSubmit(8)]]))));
    // Sampled: the service's own count (attempts from start to the end of their bookkeeping), the
    // store's count of running tasks, and the agent's task turns really running.
    let peak = 0;
    let storePeak = 0;
    let turnsPeak = 0;
    const svc = workflows() as unknown as { runningTasks(a: string): number; deps: { store: { runningTasks(a: string): Promise<number> } } };
    const sampler = setInterval(() => {
      peak = Math.max(peak, svc.runningTasks('capped'));
      void svc.deps.store.runningTasks('capped').then((n) => (storePeak = Math.max(storePeak, n)));
      void harness.svc.services.turnStore.list({ agent_id: 'capped', status: 'running', limit: 100 }).then((ts) => (turnsPeak = Math.max(turnsPeak, ts.filter((t) => t.kind === 'workflow_task').length)));
    }, 2);
    const w1 = await api(harness.svc.url, 'POST', '/v1/workflows', { agent_id: 'capped', title: 'a', concurrency: 3, tasks: a.map((p) => task(p)) });
    const w2 = await api(harness.svc.url, 'POST', '/v1/workflows', { agent_id: 'capped', title: 'b', concurrency: 3, tasks: b.map((p) => task(p)) });
    await Promise.all([workflows().waitForTerminal(w1.body.id), workflows().waitForTerminal(w2.body.id)]);
    clearInterval(sampler);
    expect({ service: peak, store: storePeak, turns: turnsPeak }).toEqual({ service: 3, store: 3, turns: 3 });
    const all = [...(await workflows().events.read(w1.body.id, 0)), ...(await workflows().events.read(w2.body.id, 0))];
    all.sort((x, y) => (x.createdAt < y.createdAt ? -1 : x.createdAt > y.createdAt ? 1 : 0));
    expect(maxConcurrent(all)).toBeLessThanOrEqual(3);
  });

  it('cancel aborts the running task turn and marks queued tasks cancelled', async () => {
    const [p0, p1, p2] = [prompt('slow'), prompt('never'), prompt('never')];
    // The first task's model answer is held for a long time; it is cancelled mid-request.
    harness.model.push(...routedEntries({ [p0]: [{ output: [message('late')], holdMs: 20_000 }] }));
    const r = await api(harness.svc.url, 'POST', '/v1/workflows', { title: 'cancel me', concurrency: 1, tasks: [task(p0), task(p1), task(p2)] });
    const id = r.body.id as string;
    const turnId = await waitFor(async () => (await workflows().get(id))!.tasks[0].turn_ids[0]);
    await waitFor(async () => (await harness.svc.services.turns.get(turnId))?.status === 'running');
    await waitFor(() => harness.model.requests.some((q) => firstUserText(q.body) === p0)); // the held request is in flight
    const c = await api(harness.svc.url, 'POST', `/v1/workflows/${id}/cancel`);
    expect(c.status).toBe(200);
    expect(c.body.status).toBe('cancelled');
    expect(c.body.tasks.map((t: { status: string }) => t.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(c.body.tasks[1].turn_ids).toEqual([]);
    expect((await api(harness.svc.url, 'GET', `/v1/turns/${turnId}`)).body.status).toBe('cancelled');
    const again = await api(harness.svc.url, 'POST', `/v1/workflows/${id}/cancel`);
    expect(again.body).toMatchObject({ status: 'cancelled', completed_at: c.body.completed_at });
    const types = (await workflows().events.read(id, 0)).map((e) => e.event.type);
    expect(types[types.length - 1]).toBe('workflow.cancelled');
    expect(types.filter((t) => t === 'task.cancelled')).toHaveLength(3);
  });

  it('streams workflow events as SSE, replayed after the end and resumable with Last-Event-ID', async () => {
    const p = prompt('sse');
    harness.model.push(...routedEntries({ [p]: [{ output: [functionCall('submit_result', { result: good })] }] }));
    const r = await api(harness.svc.url, 'POST', '/v1/workflows', { title: 'sse', tasks: [task(p)] });
    const live = await readSse(`${harness.svc.url}/v1/workflows/${r.body.id}/events`);
    expect(live.status).toBe(200);
    expect(live.serverClosed).toBe(true);
    expect(live.events.map((e) => e.event)).toEqual(['workflow.started', 'task.started', 'task.succeeded', 'workflow.completed']);
    expect(live.events.map((e) => e.id)).toEqual(['1', '2', '3', '4']);
    expect(live.events[2].json).toMatchObject({ type: 'task.succeeded', task_index: 0, result: good, workflow_id: r.body.id, seq: 3 });
    const resumed = await readSse(`${harness.svc.url}/v1/workflows/${r.body.id}/events`, { headers: { 'last-event-id': '2' } });
    expect(resumed.events.map((e) => e.id)).toEqual(['3', '4']);
    const beyond = await readSse(`${harness.svc.url}/v1/workflows/${r.body.id}/events?after=9`);
    expect(beyond.status).toBe(400);
  });

  it('lists workflows newest first with agent and status filters', async () => {
    const p = prompt('listed');
    harness.model.push(...routedEntries({ [p]: [{ output: [functionCall('submit_result', { result: good })] }] }));
    const r = await api(harness.svc.url, 'POST', '/v1/workflows', { agent_id: 'lister', title: 'listed', tasks: [task(p)] });
    await workflows().waitForTerminal(r.body.id);
    const done = await api(harness.svc.url, 'GET', '/v1/workflows?agent_id=lister&status=done');
    expect(done.body.data.map((w: { id: string }) => w.id)).toEqual([r.body.id]);
    expect((await api(harness.svc.url, 'GET', '/v1/workflows?agent_id=lister&status=live')).body.data).toEqual([]);
    const page = await api(harness.svc.url, 'GET', '/v1/workflows?limit=1');
    expect(page.body.data).toHaveLength(1);
    // The cursor stands for the page's last workflow under these filters (src/list-cursor.ts).
    expect(page.body.next_cursor).toBe(encodeQueryCursor('workflows', page.body.data[0].id, { agent_id: undefined, status: undefined }));
    const next = await api(harness.svc.url, 'GET', `/v1/workflows?limit=1&cursor=${page.body.next_cursor}`);
    expect(next.status).toBe(200);
    expect(next.body.data.map((w: { id: string }) => w.id)).not.toContain(page.body.data[0].id);
  });
});

describe('a main turn with the workflow family', () => {
  it('starts a workflow with workflow_start and reads its result with workflow_get', async () => {
    const main = prompt('research three things');
    const t = prompt('find the thing');
    let workflowId = '';
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('workflow_start', { title: 'research', tasks: [task(t)] })] },
          async (body) => {
            workflowId = /Started workflow (\S+)/.exec(toolOutputs(body)[0])![1];
            await workflows().waitForTerminal(workflowId);
            return { output: [functionCall('workflow_get', { id: workflowId })] };
          },
          { output: [message('All done.')] },
        ],
        [t]: [{ output: [functionCall('submit_result', { result: { name: 'found', count: 7, tags: ['a', 'b'] } })] }],
      }),
    );
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, tools: ['workflow'] });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'completed', output_text: 'All done.' });
    const wf = (await workflows().get(workflowId))!;
    expect(wf).toMatchObject({ status: 'completed', agent_id: 'default', title: 'research' });
    const last = harness.model.requests.filter((q) => q.body.input[0]?.content === main).at(-1)!.body;
    expect(last.tools.map((x: { name: string }) => x.name).sort()).toEqual(['workflow_cancel', 'workflow_get', 'workflow_list', 'workflow_start']);
    const getOutput = toolOutputs(last)[1];
    expect(getOutput).toContain(`Workflow ${workflowId} "research": completed — 1 task: 1 succeeded`);
    expect(getOutput).toContain('#0: {"name":"found","count":7,"tags":["a","b"]}');
  });

  it("gives task turns their own fixed catalog, whatever families and brain the starting main turn had", async () => {
    const main = prompt('start with everything');
    const t = prompt('isolated task');
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('workflow_start', { title: 'isolated', tasks: [task(t)] })] },
          async (body) => {
            await workflows().waitForTerminal(/Started workflow (\S+)/.exec(toolOutputs(body)[0])![1]);
            return { output: [message('done')] };
          },
        ],
        [t]: [{ output: [functionCall('submit_result', { result: good })] }],
      }),
    );
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', {
      input: main,
      brain: true,
      tools: ['todo', 'computer', 'web', 'schedule', 'workflow'],
    });
    expect(r.body.status).toBe('completed');
    const mainTools = harness.model.requests.find((q) => q.body.input[0]?.content === main)!.body.tools.map((x: { name?: string; type: string }) => x.name ?? x.type);
    expect(mainTools).toEqual(expect.arrayContaining(['todo', 'workflow_start', 'recall', 'get_page', 'web_fetch']));
    const taskTools = harness.model.requests.find((q) => q.body.input[0]?.content === t)!.body.tools.map((x: { name: string }) => x.name).sort();
    expect(taskTools).toEqual(['get_page', 'recall', 'submit_result', 'web_fetch']);
  });

  it('lists live workflows with workflow_list and cancels one with workflow_cancel, only for the same agent', async () => {
    const main = prompt('start then cancel');
    const t = prompt('long task');
    let workflowId = '';
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('workflow_start', { title: 'to cancel', tasks: [task(t)] })] },
          (body) => {
            workflowId = /Started workflow (\S+)/.exec(toolOutputs(body)[0])![1];
            return { output: [functionCall('workflow_list', { status: 'live' })] };
          },
          () => ({ output: [functionCall('workflow_cancel', { id: workflowId })] }),
          { output: [message('cancelled it')] },
        ],
        [t]: [{ output: [message('late')], holdMs: 20_000 }],
      }),
    );
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, agent_id: 'tooluser', tools: ['workflow'] });
    expect(r.body.status).toBe('completed');
    const reqs = harness.model.requests.filter((q) => q.body.input[0]?.content === main);
    const outputs = toolOutputs(reqs.at(-1)!.body);
    expect(outputs[1]).toContain(`- Workflow ${workflowId} "to cancel": running`);
    expect(outputs[2]).toMatch(/^Cancelled\. Workflow .* "to cancel": cancelled — 1 task: 1 cancelled$/);
    expect((await workflows().get(workflowId))!.status).toBe('cancelled');
    const other = await api(harness.svc.url, 'GET', `/v1/workflows?agent_id=someone-else&status=live`);
    expect(other.body.data).toEqual([]);
  });

  it('gives workflow_start an Error: listing every schema violation', async () => {
    const main = prompt('bad schema start');
    harness.model.push(
      ...routedEntries({
        [main]: [
          { output: [functionCall('workflow_start', { title: 'bad', tasks: [task('x', { type: 'object', properties: {}, required: [] })] })] },
          { output: [message('ok')] },
        ],
      }),
    );
    const r = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: main, tools: ['workflow'] });
    expect(r.body.status).toBe('completed');
    const out = toolOutputs(harness.model.requests.filter((q) => q.body.input[0]?.content === main).at(-1)!.body)[0];
    expect(out).toMatch(/^Error:/);
    expect(out).toContain('workflow not started: invalid workflow, 1 problem:\n- tasks[0].result_schema.additionalProperties must be false (missing)');
  });
});
