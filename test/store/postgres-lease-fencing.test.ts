/**
 * Lease fencing on Postgres (src/store/lease-fence.ts), store by store: a run's writes for its turn
 * take effect only while the turn's row still shows the run's owner and claim epoch, checked by the
 * write itself — so a statement that arrives after another instance claimed the turn is refused
 * (`lease_lost`), and every later one of that run without a statement. A turn's log takes nothing
 * after its terminal event (`stream_closed`). Refused events take no seq: ids stay gapless. The
 * steering queue too: a stale run closes no queue and marks no message applied, its own turn's nor
 * (taking over an interrupted turn's messages) the interrupted turn's. And a workflow's driver: the
 * task rows and the ending of a workflow another instance took over are not its to write.
 */
import { expect, it } from 'vitest';
import pg from 'pg';
import type { LeaseFence, WorkflowFence } from '../../src/store/lease-fence.js';
import { PgWorkflowStore } from '../../src/store/postgres/pg-workflow-store.js';
import type { WorkflowRecord } from '../../src/workflows/types.js';
import { uuidv7 } from 'uuidv7';
import { PgApprovalStore } from '../../src/store/postgres/pg-approval-store.js';
import { PgCheckpointStore } from '../../src/store/postgres/pg-checkpoint-store.js';
import type { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { laneOf, PgEventLog } from '../../src/store/postgres/pg-event-log.js';
import { PgTurnInputStore } from '../../src/store/postgres/pg-turn-input-store.js';
import { PgTurnQueue } from '../../src/store/postgres/pg-turn-queue.js';
import { PgTurnStore } from '../../src/store/postgres/pg-turn-store.js';
import { TERMINAL_EVENT_TYPES } from '../../src/runtime/events.js';
import type { TurnOutcome } from '../../src/store/turn-store.js';
import type { TurnEvent } from '../../src/runtime/events.js';
import type { EventLog } from '../../src/store/event-log.js';
import { TurnInputs } from '../../src/turns/inputs/turn-inputs.js';
import { describePostgres, migratedSchema } from '../support/postgres.js';
import { newTurn } from './contracts/turn-stores.contract.js';

const LEASE = 1000;
const outcome = (): TurnOutcome => ({ status: 'completed', completed_at: new Date().toISOString(), output_text: 'done', stop_reason: 'stop', steps: 1, usage: null, error: null, transcript: null });

interface Setup {
  db: PgDatabase;
  url: string;
  log: PgEventLog<{ type: string }>;
  store: PgTurnStore;
  queue: PgTurnQueue;
  id: string;
  /** Instance `owner` claims the turn at `now`; its fence. */
  claim(owner: string, now: number): Promise<LeaseFence>;
}

async function withTurn(fn: (s: Setup) => Promise<void>): Promise<void> {
  const { db, url } = await migratedSchema();
  try {
    const log = new PgEventLog<{ type: string }>(db, { terminalTypes: TERMINAL_EVENT_TYPES });
    const store = new PgTurnStore(db, log);
    const queue = new PgTurnQueue(db);
    const t = newTurn();
    await store.insert(t);
    const claim = async (owner: string, now: number) => {
      const c = await queue.claim(owner, now, LEASE);
      expect(c?.id).toBe(t.id);
      return { turnId: t.id, owner, epoch: c!.epoch!, lost: false };
    };
    await fn({ db, url, log, store, queue, id: t.id, claim });
  } finally {
    await db.close();
  }
}

const seqs = async (db: PgDatabase, id: string) => (await db.query<{ seq: number; type: string }>('SELECT seq, type FROM event_log WHERE stream_id = $1 ORDER BY seq', [id])).rows;

describePostgres('an event batch aborted by a deadlock', () => {
  it('is run again: the fenced events of two turns are stored once each', async () => {
    const { db, url } = await migratedSchema();
    const holder = new pg.Client({ connectionString: url });
    const crosser = new pg.Client({ connectionString: url });
    try {
      const log = new PgEventLog<{ type: string }>(db, { terminalTypes: TERMINAL_EVENT_TYPES });
      const store = new PgTurnStore(db, log);
      const queue = new PgTurnQueue(db);
      // Three turns whose appends go through one lane, all claimed by instance a.
      const turns: ReturnType<typeof newTurn>[] = [];
      while (turns.length < 3) {
        const t = newTurn();
        if (turns.length === 0 || laneOf(t.id) === laneOf(turns[0].id)) turns.push(t);
      }
      for (const t of turns) await store.insert(t);
      const fences = new Map<string, LeaseFence>();
      for (let k = 0; k < 3; k++) {
        const claimed = (await queue.claim('a', Date.now(), 60_000))!;
        fences.set(claimed.id, { turnId: claimed.id, owner: 'a', epoch: claimed.epoch!, lost: false });
      }
      const [first, low, high] = turns.map((t) => t.id);
      const [lo, hi] = [low, high].sort();
      const touch = (c: pg.Client, id: string) => c.query('UPDATE turns SET lease_until = lease_until WHERE id = $1', [id]);
      await Promise.all([holder.connect(), crosser.connect()]);
      // The lane's first batch waits on a row `holder` holds, so the next two appends queue up as one batch.
      await holder.query('BEGIN');
      await touch(holder, first);
      // `crosser` holds the later row of that batch and then asks for the earlier one, which the batch
      // holds FOR SHARE while it waits for the later: a lock cycle. It waits longer before it looks
      // for deadlocks, so Postgres aborts the batch's transaction (after 1 s), not this one.
      await crosser.query("SET deadlock_timeout = '5s'");
      await crosser.query('BEGIN');
      await touch(crosser, hi);
      const blocked = log.append(first, { type: 'message.delta' }, fences.get(first));
      await new Promise((r) => setTimeout(r, 100));
      const appended = [log.append(low, { type: 'message.delta' }, fences.get(low)), log.append(high, { type: 'message.delta' }, fences.get(high))];
      await holder.query('COMMIT');
      expect((await blocked).seq).toBe(1);
      await new Promise((r) => setTimeout(r, 200)); // the batch [low, high] holds the earlier row and waits for the later
      const t0 = Date.now();
      await touch(crosser, lo); // granted once the batch's transaction is aborted
      expect(Date.now() - t0).toBeGreaterThan(500); // it waited: the cycle was there
      await crosser.query('COMMIT');
      expect((await Promise.all(appended)).map((e) => e.seq)).toEqual([1, 1]);
      expect(await seqs(db, low)).toEqual([{ seq: 1, type: 'message.delta' }]);
      expect(await seqs(db, high)).toEqual([{ seq: 1, type: 'message.delta' }]);
    } finally {
      await holder.end().catch(() => undefined);
      await crosser.end().catch(() => undefined);
      await db.close();
    }
  }, 20_000);
});

/**
 * Start another instance's claim of the turn (or workflow) `id` — its row in `table` locked, not
 * committed — and run `write` (a write fenced by the old claim): it waits on the row lock, and
 * once the claim commits it is refused with `lease_lost`.
 */
async function refusedOnceClaimCommits(url: string, id: string, write: () => Promise<unknown>, table: 'turns' | 'workflows' = 'turns'): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('BEGIN');
    await c.query(`UPDATE ${table} SET owner = 'b', lease_epoch = lease_epoch + 1 WHERE id = $1`, [id]); // a claim in progress: the row is locked
    const stale = write();
    const settled = stale.then(() => 'stored', () => 'refused');
    await new Promise((r) => setTimeout(r, 200));
    expect(await Promise.race([settled, Promise.resolve('waiting')])).toBe('waiting');
    await c.query('COMMIT');
    await expect(stale).rejects.toMatchObject({ code: 'lease_lost' });
  } finally {
    await c.end();
  }
}

describePostgres('lease fencing on Postgres', () => {
  it('raises the claim epoch whenever the turn passes to another holder, not when its owner takes its own expired lease back', async () => {
    await withTurn(async ({ queue, claim, id }) => {
      const now = Date.now();
      const a1 = await claim('a', now);
      const a2 = await claim('a', now + LEASE + 1); // a's own lease ran out, nobody else claimed it
      expect(a2.epoch).toBe(a1.epoch);
      const b = await claim('b', now + 3 * LEASE);
      expect(b.epoch).toBe(a1.epoch + 1);
      await queue.release(id, 'b');
      const b2 = await claim('b', now + 3 * LEASE);
      expect(b2.epoch).toBe(b.epoch + 1); // released, then claimed: a new holding
    });
  });

  it('refuses the appends of a run that lost its lease; other appends of the batch are stored, numbered gaplessly', async () => {
    await withTurn(async ({ db, log, store, claim, id }) => {
      const now = Date.now();
      const a = await claim('a', now);
      await log.append(id, { type: 'turn.started' }, a);
      const b = await claim('b', now + 2 * LEASE);
      const other = newTurn();
      await store.insert(other);
      // One batch: a stale append beside an unfenced one of the same turn and one of another stream.
      const stale = log.append(id, { type: 'message.delta' }, a);
      const free = log.append(id, { type: 'input.queued' });
      const elsewhere = log.append(other.id, { type: 'turn.started' });
      await expect(stale).rejects.toMatchObject({ code: 'lease_lost' });
      expect((await free).seq).toBe(2);
      expect((await elsewhere).seq).toBe(1);
      expect(a.lost).toBe(true);
      await expect(log.append(id, { type: 'message.delta' }, a)).rejects.toMatchObject({ code: 'lease_lost' });
      expect((await log.append(id, { type: 'turn.resumed' }, b)).seq).toBe(3);
      expect((await seqs(db, id)).map((r) => r.type)).toEqual(['turn.started', 'input.queued', 'turn.resumed']);
    });
  });

  it('refuses an append that waited for a claim: the claim committed first, so the append sees the new holder', async () => {
    await withTurn(async ({ db, url, log, claim, id }) => {
      const a = await claim('a', Date.now());
      await refusedOnceClaimCommits(url, id, () => log.append(id, { type: 'message.delta' }, a));
      expect(await seqs(db, id)).toEqual([]);
    });
  });

  it('refuses the checkpoint, approval row, finished record and progress of a run that lost its lease', async () => {
    await withTurn(async ({ db, store, claim, id }) => {
      const now = Date.now();
      const a = await claim('a', now);
      const checkpoints = new PgCheckpointStore(db);
      await checkpoints.save(id, { version: 1, step: 0, itemCount: 0, state: '{}' }, [], a);
      await claim('b', now + 2 * LEASE);
      await expect(checkpoints.save(id, { version: 1, step: 1, itemCount: 0, state: '{"x":1}' }, [], { ...a, lost: false })).rejects.toMatchObject({ code: 'lease_lost' });
      expect((await checkpoints.load(id))!.state).toBe('{}');
      const approvals = new PgApprovalStore(db);
      const at = new Date().toISOString();
      await expect(approvals.request({ turn_id: id, call_id: 'c1', name: 'command', arguments: {}, label: null, requested_at: at, expires_at: at }, { ...a, lost: false })).rejects.toMatchObject({ code: 'lease_lost' });
      expect(await approvals.list(id)).toEqual([]);
      await store.updateProgress(id, { steps: 7, usage: null }, { ...a, lost: false });
      expect((await store.get(id))!.steps).toBe(0);
      await expect(store.finish(id, outcome(), { ...a, lost: false })).rejects.toMatchObject({ code: 'lease_lost' });
      expect((await store.get(id))!.status).toBe('running');
    });
  });

  it('refuses a stale terminal event with the finished record joined to it: neither is stored', async () => {
    await withTurn(async ({ db, log, store, claim, id }) => {
      const now = Date.now();
      const a = await claim('a', now);
      await claim('b', now + 2 * LEASE);
      const finished = store.finishInBatch(id, outcome(), a);
      const terminal = log.append(id, { type: 'turn.completed' }, a);
      await expect(terminal).rejects.toMatchObject({ code: 'lease_lost' });
      await expect(finished).rejects.toMatchObject({ code: 'lease_lost' });
      expect((await store.get(id))!.status).toBe('running');
      expect(await seqs(db, id)).toEqual([]);
    });
  });

  it('finishes the record with the terminal event while the lease is held, and stores nothing after the terminal event', async () => {
    await withTurn(async ({ db, log, store, claim, id }) => {
      const a = await claim('a', Date.now());
      await log.append(id, { type: 'turn.started' }, a);
      const finished = store.finishInBatch(id, outcome(), a);
      const terminal = log.append(id, { type: 'turn.completed' }, a);
      const behind = log.append(id, { type: 'message.delta' }); // same batch, behind the terminal event
      expect((await terminal).seq).toBe(2);
      expect(await finished).toBe(true);
      await expect(behind).rejects.toMatchObject({ code: 'stream_closed' });
      await expect(log.append(id, { type: 'approval.resolved' })).rejects.toMatchObject({ code: 'stream_closed' });
      expect((await seqs(db, id)).map((r) => r.seq)).toEqual([1, 2]);
      expect((await store.get(id))!.status).toBe('completed');
    });
  });
});

describePostgres('lease fencing of the steering queue on Postgres', () => {
  const at = () => new Date().toISOString();
  let n = 0;
  const add = (inputs: PgTurnInputStore, turnId: string, content: string) =>
    inputs.add({ id: `msg_${String(++n).padStart(32, '0')}`, turn_id: turnId, content, source: 'api', created_at: at() });
  const applied = async (inputs: PgTurnInputStore, turnId: string) => (await inputs.listAfter(turnId, 0)).map((m) => [m.content, m.applied_at !== null]);

  it('refuses the marks and closes of a run that lost its lease, conditional or not; the new holder makes them', async () => {
    await withTurn(async ({ db, claim, id }) => {
      const inputs = new PgTurnInputStore(db);
      await add(inputs, id, 'one');
      await add(inputs, id, 'two');
      const now = Date.now();
      const a = await claim('a', now);
      expect((await inputs.markApplied(id, 1, at(), a)).map((m) => m.content)).toEqual(['one']); // held: marked
      const b = await claim('b', now + 2 * LEASE);
      await expect(inputs.markApplied(id, 2, at(), a)).rejects.toMatchObject({ code: 'lease_lost' });
      expect(a.lost).toBe(true);
      const stale = () => ({ ...a, lost: false }); // as if the refusal had not been seen yet: the database refuses
      await expect(inputs.markApplied(id, 2, at(), stale())).rejects.toMatchObject({ code: 'lease_lost' });
      await expect(inputs.close(id, 2, at(), { ifIdle: true, fence: stale() })).rejects.toMatchObject({ code: 'lease_lost' });
      await expect(inputs.close(id, 1, at(), { fence: stale() })).rejects.toMatchObject({ code: 'lease_lost' });
      expect(await applied(inputs, id)).toEqual([['one', true], ['two', false]]);
      expect((await add(inputs, id, 'three'))?.seq).toBe(3); // the queue is still open

      expect((await inputs.markApplied(id, 3, at(), b)).map((m) => m.content)).toEqual(['two', 'three']);
      expect(await inputs.close(id, 3, at(), { ifIdle: true, fence: b })).toEqual({ closed: true, pending: [] });
      expect(await add(inputs, id, 'too late')).toBeUndefined();
    });
  });

  it('refuses a mark that waited for a claim: the claim committed first, so the mark sees the new holder', async () => {
    await withTurn(async ({ db, url, claim, id }) => {
      const inputs = new PgTurnInputStore(db);
      await add(inputs, id, 'one');
      const a = await claim('a', Date.now());
      await refusedOnceClaimCommits(url, id, () => inputs.markApplied(id, 1, at(), a));
      expect(await applied(inputs, id)).toEqual([['one', false]]);
    });
  });

  it('a successor that lost its lease neither closes the interrupted turn\'s queue nor marks its messages taken; the new holder can take them', async () => {
    await withTurn(async ({ db, log, store, claim, id }) => {
      const messages = new PgTurnInputStore(db);
      const steering = new TurnInputs({ store: messages, turns: store, events: log as unknown as EventLog<TurnEvent> });
      const interrupted = newTurn();
      await store.insert(interrupted);
      await add(messages, interrupted.id, 'left over');
      const now = Date.now();
      const a = await claim('a', now); // `id` is the interrupting successor
      const took = await steering.takeOver(interrupted.id, a);
      expect(took.items).toEqual([{ type: 'message', role: 'user', content: 'left over' }]);
      const b = await claim('b', now + 2 * LEASE); // a lost its turn before marking them taken
      await expect(took.taken()).rejects.toMatchObject({ code: 'lease_lost' });
      expect(await applied(messages, interrupted.id)).toEqual([['left over', false]]);

      const again = await steering.takeOver(interrupted.id, b);
      expect(again.items).toEqual(took.items);
      await again.taken();
      expect(await applied(messages, interrupted.id)).toEqual([['left over', true]]);
      expect((await steering.takeOver(interrupted.id, b)).items).toEqual([]);

      // A stale takeover on a queue nobody closed yet closes nothing.
      const other = newTurn();
      await store.insert(other);
      await add(messages, other.id, 'still open');
      await expect(steering.takeOver(other.id, { ...a, lost: false })).rejects.toMatchObject({ code: 'lease_lost' });
      expect((await add(messages, other.id, 'and more'))?.seq).toBe(2);
    });
  });
});

describePostgres('lease fencing of workflow drivers on Postgres', () => {
  const workflow = (): WorkflowRecord => ({
    id: uuidv7(),
    agent_id: 'wf-agent',
    title: 'fenced',
    status: 'running',
    tasks: [0, 1].map((index) => ({ index, label: `t${index}`, prompt: `do ${index}`, result_schema: { type: 'object' }, status: 'queued' as const, attempts: 0, turn_ids: [] })),
    concurrency: 2,
    brain: false,
    model: null,
    created_at: new Date().toISOString(),
    completed_at: null,
    summary: null,
  });

  async function withWorkflow(fn: (s: { db: PgDatabase; url: string; store: PgWorkflowStore; id: string; a: WorkflowFence; now: number }) => Promise<void>): Promise<void> {
    const { db, url } = await migratedSchema();
    try {
      const store = new PgWorkflowStore(db);
      const wf = workflow();
      const now = Date.now();
      const claim = await store.insert(wf, { owner: 'a', until: now + LEASE });
      expect(claim).toEqual({ epoch: 1 });
      await fn({ db, url, store, id: wf.id, a: { workflowId: wf.id, owner: 'a', epoch: 1, lost: false }, now });
    } finally {
      await db.close();
    }
  }

  it('raises the epoch when the workflow passes to another driver, not when its driver takes its own lease back', async () => {
    await withWorkflow(async ({ store, id, now }) => {
      expect(await store.claimWorkflow(id, 'a', now + 2 * LEASE, now + 3 * LEASE)).toEqual({ epoch: 1 }); // its own, run out: kept
      expect(await store.claimWorkflow(id, 'b', now + 2 * LEASE, now + 3 * LEASE)).toBeUndefined(); // held
      expect(await store.claimWorkflow(id, 'b', now + 4 * LEASE, now + 5 * LEASE)).toEqual({ epoch: 2 });
      await store.releaseWorkflow(id, 'b');
      expect(await store.claimWorkflow(id, 'b', now + 4 * LEASE, now + 5 * LEASE)).toEqual({ epoch: 3 }); // released, then claimed: a new holding
    });
  });

  it('refuses the task writes and the ending of a driver that lost its lease; the new driver makes them', async () => {
    await withWorkflow(async ({ store, id, a, now }) => {
      expect(await store.startTask(id, 0, 10, a)).toMatchObject({ kind: 'started', task: { status: 'running', attempts: 1 } });
      await store.updateTask(id, 0, { turn_ids: ['turn-a'] }, a);
      const b = await store.claimWorkflow(id, 'b', now + 2 * LEASE, now + 3 * LEASE);
      const fb: WorkflowFence = { workflowId: id, owner: 'b', epoch: b!.epoch!, lost: false };

      // What A's hung connection delivers late: the task requeued, the other task started, the workflow failed.
      await expect(store.updateTask(id, 0, { status: 'queued', error: { code: 'interrupted', message: 'late' } }, a)).rejects.toMatchObject({ code: 'lease_lost', details: { workflow_id: id } });
      expect(a.lost).toBe(true);
      const stale = () => ({ ...a, lost: false }); // as if the refusal had not been seen yet: the database refuses
      await expect(store.updateTask(id, 0, { status: 'failed' }, stale())).rejects.toMatchObject({ code: 'lease_lost' });
      await expect(store.startTask(id, 1, 10, stale())).rejects.toMatchObject({ code: 'lease_lost' });
      await expect(store.finish(id, 'failed', 'late', stale())).rejects.toMatchObject({ code: 'lease_lost' });
      const wf = (await store.get(id))!;
      expect(wf.status).toBe('running');
      expect(wf.tasks.map((t) => [t.status, t.attempts, t.turn_ids])).toEqual([['running', 1, ['turn-a']], ['queued', 0, []]]);

      expect(await store.startTask(id, 1, 10, fb)).toMatchObject({ kind: 'started' });
      await store.updateTask(id, 0, { status: 'succeeded', result: { n: 0 } }, fb);
      await store.updateTask(id, 1, { status: 'succeeded', result: { n: 1 } }, fb);
      expect(await store.finish(id, 'completed', 'done', fb)).toBe(true);
      expect(await store.finish(id, 'failed', 'late', stale())).toBe(false); // finished: nothing to refuse, nothing changed
      expect((await store.get(id))!).toMatchObject({ status: 'completed', summary: 'done' });
    });
  });

  it('refuses a task write that waited for a claim: the claim committed first, so the write sees the new driver', async () => {
    await withWorkflow(async ({ url, store, id, a }) => {
      await refusedOnceClaimCommits(url, id, () => store.updateTask(id, 0, { status: 'cancelled' }, a), 'workflows');
      expect((await store.getTask(id, 0))!.status).toBe('queued');
    });
  });
});
