/**
 * A workflow task turn whose driver lost the workflow between creating the turn and recording it
 * (Postgres): the driver's write of the task's `turn_ids` is refused (the workflow's claim epoch),
 * and the new driver, knowing nothing of that turn, queues the task again and starts another
 * attempt. The left-over turn must neither run on (the old driver cancels it) nor, should it still
 * submit (its cancel late), have its result accepted over the current attempt's.
 *
 * Real parts: the real service (instance A: its workflow service, turn service and runner) on a
 * fresh Postgres schema against the scripted Responses server, and a second real workflow service
 * (instance B) on the same database and turn service. The takeover is what a lease running out
 * does: the workflow's row loses its owner (A's heartbeat, every TURN_LEASE_MS / 3 = 20 s, does
 * not come in the test's time) and B takes it up with its start. It happens right after A created
 * the task's first turn, before A records it: A's turn service's `create` is wrapped to do so.
 */
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { PgEventLog } from '../../src/store/postgres/pg-event-log.js';
import { PgWorkflowStore } from '../../src/store/postgres/pg-workflow-store.js';
import { InProcessEventNotifier } from '../../src/store/in-process-notifier.js';
import { PublishedEventLog } from '../../src/store/published-event-log.js';
import type { WorkflowEvent } from '../../src/workflows/events.js';
import { DefaultWorkflowService } from '../../src/workflows/workflow-service.js';
import { functionCall, message, startScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { describePostgres, migratedSchema } from '../support/postgres.js';
import { api, startTestService } from '../e2e/support/service.js';
import { firstUserText, routedEntries, SCHEMA, toolOutputs, waitFor } from './support.js';

const LEASE_MS = '60000';
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
});

const STALE = { name: 'stale', count: 1, tags: [] };
const CURRENT = { name: 'current', count: 2, tags: [] };

/** A fresh schema, the scripted model and instance A (the real service) on them; all closed after the test. */
async function instanceA() {
  const { db, url } = await migratedSchema();
  closers.push(() => db.close());
  const model = await startScriptedResponsesServer();
  closers.push(() => model.close());
  const svc = await startTestService({ modelBaseURL: model.baseURL, env: { DATABASE_URL: url, STREAM_TOKEN_SECRET: 'a-shared-secret-of-32-characters', TURN_LEASE_MS: LEASE_MS } });
  closers.push(() => svc.close());
  return { db, model, svc };
}

/**
 * Instance A (the service) and B (a workflow service on the same database and turns); one
 * workflow of one task with prompt `p`, whose first turn (T1) A creates and then loses the
 * workflow to B before recording it. The model: T1's first request is answered with a submission
 * of {@link STALE} once B's attempt 2 is recorded; the second attempt's turn (T2) submits
 * {@link CURRENT} once T1's submission was answered (or T1 ended); any request carrying tool
 * outputs gets a prose answer.
 * @param opts.holdCancel A's cancel of T1 waits until the test ends (it reaches the turn late).
 */
async function orphanedFirstTurn(p: string, opts: { holdCancel?: boolean } = {}) {
  const { db, model, svc } = await instanceA();
  const store = new PgWorkflowStore(db);
  const b = new DefaultWorkflowService({
    config: loadConfig({ TURN_LEASE_MS: LEASE_MS }),
    instanceId: 'b',
    store,
    events: new PublishedEventLog(new PgEventLog<WorkflowEvent>(db), new InProcessEventNotifier<WorkflowEvent>()),
    turns: svc.services.turns,
  });
  closers.push(() => b.stop());

  const turns = svc.services.turns;
  let workflowId = '';
  let t1 = '';
  const requests = () => model.requests.filter((r) => firstUserText(r.body) === p).map((r) => r.body);
  const realCreate = turns.create.bind(turns);
  turns.create = (async (input, o) => {
    const rec = await realCreate(input, o);
    if (o?.kind === 'workflow_task' && t1 === '') {
      t1 = rec.id;
      await waitFor(() => requests().length > 0); // T1 runs, bound to attempt 1
      await db.query('UPDATE workflows SET owner = NULL, lease_until = NULL WHERE id = $1', [workflowId]); // A's lease ran out
      await b.start(); // B takes it up: the task, with no turn recorded, is queued again and attempt 2 starts
    }
    return rec;
  }) as typeof turns.create;
  let releaseCancel!: () => void;
  const cancelHeld = new Promise<void>((r) => (releaseCancel = r));
  closers.push(async () => releaseCancel());
  const realCancel = turns.cancel.bind(turns);
  turns.cancel = (async (id) => {
    if (opts.holdCancel && id === t1) await cancelHeld;
    return realCancel(id);
  }) as typeof turns.cancel;

  const answered = () => requests().some((body) => toolOutputs(body).length > 0);
  let fresh = 0;
  const route = async (body: Parameters<typeof toolOutputs>[0]) => {
    if (toolOutputs(body).length > 0) return { output: [message('nothing more to do')] };
    if (++fresh === 1) {
      await waitFor(async () => (await store.getTask(workflowId, 0))!.turn_ids.length === 1 || undefined);
      return { output: [functionCall('submit_result', { result: STALE })] };
    }
    await waitFor(async () => answered() || (await store.getTask(workflowId, 0))!.status !== 'running' || (await turns.get(t1))!.completed_at !== null || undefined).catch(() => undefined);
    return { output: [functionCall('submit_result', { result: CURRENT })] };
  };
  model.push(...routedEntries({ [p]: Array.from({ length: 8 }, () => route) }));

  const created = await api(svc.url, 'POST', '/v1/workflows', { title: 'orphaned', tasks: [{ label: 'l', prompt: p, result_schema: SCHEMA }] });
  expect(created.status).toBe(201);
  workflowId = created.body.id;
  const wf = await b.waitForTerminal(workflowId);
  return { wf, t1: () => t1, turns, requests, events: () => b.events.read(workflowId, 0, 100), releaseCancel };
}

/** Instance A (the service) on a fresh schema and the scripted model; a workflow service B on the same database and turns, with `store` in place of its own. */
async function withDriver(wrap: (store: PgWorkflowStore) => PgWorkflowStore) {
  const { db, model, svc } = await instanceA();
  const b = new DefaultWorkflowService({
    config: loadConfig({ TURN_LEASE_MS: LEASE_MS }),
    instanceId: 'b',
    store: wrap(new PgWorkflowStore(db)),
    events: new PublishedEventLog(new PgEventLog<WorkflowEvent>(db), new InProcessEventNotifier<WorkflowEvent>()),
    turns: svc.services.turns,
  });
  closers.push(() => b.stop());
  return { model, b };
}

describePostgres('a task turn created by a driver that lost the workflow before recording it (Postgres)', () => {
  it('is cancelled by that driver when its write of the turn is refused; the task ends with the new attempt', async () => {
    const s = await orphanedFirstTurn('orphaned turn: cancelled');
    const t1 = await s.turns.waitForTerminal(s.t1());
    expect(t1.status).toBe('cancelled');
    expect(s.wf).toMatchObject({ status: 'completed', tasks: [{ status: 'succeeded', attempts: 2, result: CURRENT }] });
    expect(s.wf.tasks[0].turn_ids).toHaveLength(1);
    expect(s.wf.tasks[0].turn_ids).not.toContain(s.t1());
  }, 30_000);

  it("refuses the left-over turn's submit_result once a newer attempt exists: it gets an Error: to act on, and the task's result is the current attempt's", async () => {
    const s = await orphanedFirstTurn('orphaned turn: late cancel', { holdCancel: true });
    expect(s.wf).toMatchObject({ status: 'completed', tasks: [{ status: 'succeeded', attempts: 2, result: CURRENT }] });
    const [t2] = s.wf.tasks[0].turn_ids;
    expect(s.wf.tasks[0].turn_ids).toEqual([t2]);
    expect(t2).not.toBe(s.t1());
    const outputs = s.requests().flatMap((body) => toolOutputs(body));
    expect(outputs.some((o) => o.startsWith('Error:') && o.includes('this turn ran attempt 1 of the task, which is over (the task is at attempt 2)')), JSON.stringify(outputs)).toBe(true);
    const succeeded = (await s.events()).map((e) => e.event).filter((e) => e.type === 'task.succeeded');
    expect(succeeded).toEqual([expect.objectContaining({ turn_id: t2, result: CURRENT })]);
    // The stale turn ends by itself (it was told to); the late cancel then finds it finished.
    const t1 = await s.turns.waitForTerminal(s.t1());
    expect(t1.status).toBe('completed');
    s.releaseCancel();
  }, 30_000);

  it("accepts the submission of the current attempt's turn that comes before its driver recorded the turn", async () => {
    const p = 'submits before it is recorded';
    let recordedAt = 0;
    let submittedAt = 0;
    const { model, b } = await withDriver((store) => {
      const slow = Object.create(store) as PgWorkflowStore;
      slow.updateTask = async (id, index, patch, fence) => {
        if (patch.turn_ids) await new Promise((r) => setTimeout(r, 600)); // the record lands late
        await store.updateTask(id, index, patch, fence);
        if (patch.turn_ids) recordedAt = Date.now();
      };
      return slow;
    });
    model.push(...routedEntries({
      [p]: [
        () => ((submittedAt = Date.now()), { output: [functionCall('submit_result', { result: CURRENT })] }),
        { output: [message('nothing more to do')] },
        { output: [message('nothing more to do')] },
      ],
    }));
    const created = await b.create({ title: 'early submit', agent_id: 'early', tasks: [{ label: 'l', prompt: p, result_schema: SCHEMA }] });
    const wf = await b.waitForTerminal(created.id);
    expect(submittedAt).toBeGreaterThan(0);
    expect(submittedAt).toBeLessThan(recordedAt);
    expect(wf).toMatchObject({ status: 'completed', tasks: [{ status: 'succeeded', attempts: 1, result: CURRENT }] });
    expect(model.requests.filter((r) => firstUserText(r.body) === p)).toHaveLength(1); // accepted at once: no Error: to answer
  }, 30_000);
});
