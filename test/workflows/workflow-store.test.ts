/**
 * The workflow store's contract: one suite, run on SQLite and on Postgres. The per-agent running
 * limit is checked with two store instances on one database (as two service instances see it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { openDatabase } from '../../src/store/database.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { PgWorkflowStore } from '../../src/store/postgres/pg-workflow-store.js';
import { SqliteWorkflowStore } from '../../src/workflows/sqlite-workflow-store.js';
import type { WorkflowRecord } from '../../src/workflows/types.js';
import type { WorkflowStore } from '../../src/workflows/workflow-store.js';
import { migratedSchema } from '../support/postgres.js';
import { describeEachEngine, type EngineName } from '../support/store-engines.js';

/** Several connections on one file (as several processes would be): opened without the service's exclusive lock. */
const SHARED = { exclusive: false };

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** Two stores on one fresh database (two handles / two pools). */
async function twoStores(engine: EngineName): Promise<[WorkflowStore, WorkflowStore]> {
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wf-store-'));
    const [a, b] = [openDatabase(dir, SHARED), openDatabase(dir, SHARED)];
    closers.push(() => fs.rmSync(dir, { recursive: true, force: true }), () => a.close(), () => b.close());
    return [new SqliteWorkflowStore(a), new SqliteWorkflowStore(b)];
  }
  const { db, url } = await migratedSchema();
  const other = new PgDatabase({ url, max: 4 });
  closers.push(() => db.close(), () => other.close());
  return [new PgWorkflowStore(db), new PgWorkflowStore(other)];
}

function workflow(agentId: string, tasks: number, over: Partial<WorkflowRecord> = {}): WorkflowRecord {
  return {
    id: uuidv7(),
    agent_id: agentId,
    title: 'research',
    status: 'running',
    tasks: Array.from({ length: tasks }, (_, index) => ({
      index,
      label: `task ${index}`,
      prompt: `do ${index}`,
      result_schema: { type: 'object', properties: { b: { type: 'string' }, a: { type: 'number' } }, required: ['b', 'a'] },
      status: 'queued' as const,
      attempts: 0,
      turn_ids: [],
    })),
    concurrency: 4,
    brain: true,
    model: null,
    created_at: new Date().toISOString(),
    completed_at: null,
    summary: null,
    ...over,
  };
}

describeEachEngine('workflow store', (engine) => {
  it('stores a workflow with its tasks and reads it back exactly (key order of schemas kept)', async () => {
    const [store] = await twoStores(engine);
    const wf = workflow('a1', 2);
    await store.insert(wf);
    const back = (await store.get(wf.id))!;
    expect(back).toEqual(wf);
    expect(Object.keys(back.tasks[0].result_schema.properties as object)).toEqual(['b', 'a']);
    expect(await store.get('nope')).toBeUndefined();
    expect(await store.getTask(wf.id, 1)).toEqual(wf.tasks[1]);
    expect(await store.getTask(wf.id, 9)).toBeUndefined();
  });

  it('applies task patches (results, errors, turn ids; null clears) and finishes a workflow', async () => {
    const [store] = await twoStores(engine);
    const wf = workflow('a1', 1);
    await store.insert(wf);
    await store.updateTask(wf.id, 0, { status: 'failed', error: { code: 'x', message: 'boom' }, turn_ids: ['t1'] });
    expect(await store.getTask(wf.id, 0)).toMatchObject({ status: 'failed', error: { code: 'x', message: 'boom' }, turn_ids: ['t1'] });
    await store.updateTask(wf.id, 0, { status: 'succeeded', result: { a: 1, b: 'two' }, error: null });
    const t = (await store.getTask(wf.id, 0))!;
    expect(t.result).toEqual({ a: 1, b: 'two' });
    expect(t.error).toBeUndefined();
    await store.finish(wf.id, 'completed', '1 succeeded');
    expect(await store.get(wf.id)).toMatchObject({ status: 'completed', summary: '1 succeeded', completed_at: expect.any(String) });
    expect(await store.idsWithStatus('running')).toEqual([]);
    expect(await store.idsWithStatus('completed')).toEqual([wf.id]);
  });

  it('lists newest first with agent and status filters and an id cursor', async () => {
    const [store] = await twoStores(engine);
    const a = workflow('a1', 1);
    const b = workflow('a1', 1, { status: 'failed' });
    const c = workflow('a2', 1);
    for (const w of [a, b, c]) await store.insert(w);
    const p1 = await store.list({ limit: 2 });
    expect(p1.workflows.map((w) => w.id)).toEqual([c.id, b.id]);
    expect((await store.list({ limit: 2, cursor: p1.next_cursor! })).workflows.map((w) => w.id)).toEqual([a.id]);
    expect((await store.list({ agent_id: 'a1', status: 'done' })).workflows.map((w) => w.id)).toEqual([b.id]);
    expect((await store.list({ status: 'live' })).workflows.map((w) => w.id)).toEqual([c.id, a.id]);
    expect((await store.list({ agent_id: 'a1' })).workflows[0].tasks).toHaveLength(1);
  });

  it('starts a queued task once, counting attempts', async () => {
    const [store] = await twoStores(engine);
    const wf = workflow('a1', 1);
    await store.insert(wf);
    const first = await store.startTask(wf.id, 0, 8);
    expect(first).toMatchObject({ kind: 'started', task: { index: 0, status: 'running', attempts: 1 } });
    expect(await store.startTask(wf.id, 0, 8)).toEqual({ kind: 'not_queued' });
    expect(await store.startTask(wf.id, 5, 8)).toEqual({ kind: 'not_queued' });
    await store.updateTask(wf.id, 0, { status: 'queued' });
    expect(await store.startTask(wf.id, 0, 8)).toMatchObject({ kind: 'started', task: { attempts: 2 } });
  });

  it('accepts a result only for the running attempt from its recorded turn while the workflow runs: a stale attempt\'s write is refused', async () => {
    const [store] = await twoStores(engine);
    const wf = workflow('a1', 1);
    await store.insert(wf);
    const result = { b: 'two', a: 1 };
    await store.startTask(wf.id, 0, 8);
    await store.updateTask(wf.id, 0, { turn_ids: ['turn-1'] });
    // Attempt 1 failed and the task went back to the queue: its turn's result is refused.
    await store.updateTask(wf.id, 0, { status: 'queued', error: { code: 'x', message: 'boom' } });
    expect(await store.acceptResult(wf.id, 0, 1, 'turn-1', result)).toBe(false);
    // Attempt 2 runs with another turn: attempt 1's turn, and a turn not recorded for attempt 2, are refused.
    await store.startTask(wf.id, 0, 8);
    await store.updateTask(wf.id, 0, { turn_ids: ['turn-1', 'turn-2'] });
    expect(await store.acceptResult(wf.id, 0, 1, 'turn-1', result)).toBe(false);
    expect(await store.acceptResult(wf.id, 0, 2, 'turn-1', result)).toBe(false);
    expect(await store.acceptResult(wf.id, 0, 3, 'turn-2', result)).toBe(false);
    expect(await store.acceptResult(wf.id, 1, 2, 'turn-2', result)).toBe(false);
    expect(await store.getTask(wf.id, 0)).toMatchObject({ status: 'running', attempts: 2, error: { code: 'x' } });
    expect((await store.getTask(wf.id, 0))!.result).toBeUndefined();
    // The current attempt's recorded turn: accepted once, the error cleared, the value kept as sent.
    expect(await store.acceptResult(wf.id, 0, 2, 'turn-2', result)).toBe(true);
    const done = (await store.getTask(wf.id, 0))!;
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2, result });
    expect(Object.keys(done.result as object)).toEqual(['b', 'a']);
    expect(done.error).toBeUndefined();
    expect(await store.acceptResult(wf.id, 0, 2, 'turn-2', { b: 'other', a: 2 })).toBe(false);
    expect((await store.getTask(wf.id, 0))!.result).toEqual(result);

    // A task of a workflow that is no longer running, or one that is not running itself, takes no result.
    const other = workflow('a1', 2);
    await store.insert(other);
    for (const i of [0, 1]) {
      await store.startTask(other.id, i, 8);
      await store.updateTask(other.id, i, { turn_ids: [`other-${i}`] });
    }
    await store.updateTask(other.id, 1, { status: 'failed' });
    expect(await store.acceptResult(other.id, 1, 1, 'other-1', result)).toBe(false);
    await store.finish(other.id, 'cancelled', 'cancelled');
    expect(await store.acceptResult(other.id, 0, 1, 'other-0', result)).toBe(false);
    expect((await store.get(other.id))!.tasks.map((t) => t.status)).toEqual(['running', 'failed']);
  });

  it('takes no result once a cancel of the workflow is stored, by this instance or another', async () => {
    const [a, b] = await twoStores(engine);
    const wf = workflow('a1', 1);
    await a.insert(wf);
    await a.startTask(wf.id, 0, 8);
    await a.updateTask(wf.id, 0, { turn_ids: ['turn-1'] });
    expect(await b.requestCancel(wf.id, new Date().toISOString())).toBe(true);
    expect(await a.acceptResult(wf.id, 0, 1, 'turn-1', { a: 1 })).toBe(false);
    expect(await a.getTask(wf.id, 0)).toMatchObject({ status: 'running', attempts: 1 });
  });

  it('holds the per-agent running limit across two instances starting tasks at the same moment', async () => {
    const [a, b] = await twoStores(engine);
    const w1 = workflow('busy', 6);
    const w2 = workflow('busy', 6);
    const other = workflow('calm', 2);
    for (const w of [w1, w2, other]) await a.insert(w);
    const attempts = [...w1.tasks.map((t) => [w1.id, t.index] as const), ...w2.tasks.map((t) => [w2.id, t.index] as const)];
    const outcomes = await Promise.all(attempts.map(([id, i], n) => (n % 2 ? a : b).startTask(id, i, 3)));
    expect(outcomes.filter((o) => o.kind === 'started')).toHaveLength(3);
    expect(outcomes.filter((o) => o.kind === 'agent_limit')).toHaveLength(9);
    expect(await a.runningTasks('busy')).toBe(3);
    // another agent is not affected; a task ending frees a slot
    expect(await b.startTask(other.id, 0, 3)).toMatchObject({ kind: 'started' });
    const started = outcomes.findIndex((o) => o.kind === 'started');
    await a.updateTask(attempts[started][0], attempts[started][1], { status: 'succeeded' });
    expect(await b.runningTasks('busy')).toBe(2);
    const queued = attempts.find((_, n) => outcomes[n].kind === 'agent_limit')!;
    expect(await b.startTask(queued[0], queued[1], 3)).toMatchObject({ kind: 'started' });
  });

  it('gives a running workflow one driver at a time: leased at insert, renewed by its owner, taken over once the lease ended', async () => {
    const [a, b] = await twoStores(engine);
    const wf = workflow('lease', 1);
    await a.insert(wf, { owner: 'A', until: 10_000 });
    expect(await b.unownedWorkflows(5_000)).toEqual([]);
    expect(await b.claimWorkflow(wf.id, 'B', 5_000, 15_000)).toBeUndefined();
    expect(await a.renewWorkflows('A', [wf.id], 20_000)).toEqual([{ id: wf.id, cancelRequested: false }]);
    expect(await b.renewWorkflows('B', [wf.id], 20_000)).toEqual([]);
    // A stops renewing (it died): once the lease ended, B takes it over, and A's renewals fail.
    expect(await b.unownedWorkflows(20_001)).toEqual([wf.id]);
    const [x, y] = await Promise.all([b.claimWorkflow(wf.id, 'B', 20_001, 30_000), a.claimWorkflow(wf.id, 'C', 20_001, 30_000)]);
    expect([x, y].filter(Boolean)).toHaveLength(1);
    const winner = x ? 'B' : 'C';
    expect(await a.renewWorkflows('A', [wf.id], 40_000)).toEqual([]);
    expect(await b.claimWorkflow(wf.id, winner, 25_000, 35_000)).toBeDefined(); // the holder renews by claiming too
    await b.releaseWorkflow(wf.id, winner);
    expect(await a.unownedWorkflows(0)).toEqual([wf.id]);
  });

  it('stores a cancel request for the driver, and finishes a workflow once (only while running)', async () => {
    const [a, b] = await twoStores(engine);
    const wf = workflow('cancel', 1);
    await a.insert(wf, { owner: 'A', until: Date.now() + 60_000 });
    expect(await a.cancelRequested(wf.id)).toBe(false);
    expect(await b.requestCancel(wf.id, new Date().toISOString())).toBe(true);
    expect(await a.cancelRequested(wf.id)).toBe(true);
    expect(await a.renewWorkflows('A', [wf.id], Date.now() + 60_000)).toEqual([{ id: wf.id, cancelRequested: true }]);
    expect(await a.finish(wf.id, 'cancelled', 'cancelled')).toBe(true);
    expect(await b.finish(wf.id, 'completed', 'done')).toBe(false);
    expect((await b.get(wf.id))!.status).toBe('cancelled');
    expect(await b.requestCancel(wf.id, new Date().toISOString())).toBe(false);
    expect(await a.unownedWorkflows(Date.now())).toEqual([]);
  });
});
