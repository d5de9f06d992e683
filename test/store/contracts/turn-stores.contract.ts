/**
 * Contract suite of the turn-side store ports — {@link TurnStore}, {@link TurnQueue},
 * {@link TurnCheckpointStore} — run against every engine: call
 * `describeTurnStoreContract(name, open)` from an engine's test file (SQLite:
 * test/store/sqlite-turn-stores.test.ts). `open` returns fresh, empty ports on one database.
 */
import { describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import type { TranscriptItem } from '../../../src/model/port.js';
import type { TurnCheckpointStore } from '../../../src/store/checkpoint-store.js';
import type { TurnQueue } from '../../../src/store/turn-queue.js';
import type { NewTurn, TurnOutcome, TurnStore } from '../../../src/store/turn-store.js';

export interface TurnPorts {
  store: TurnStore;
  queue: TurnQueue;
  checkpoints: TurnCheckpointStore;
  /** Write raw text into a turn's stored checkpoint state (to simulate corruption). */
  corruptCheckpoint(turnId: string, text: string): Promise<void>;
  close(): Promise<void>;
}

export function newTurn(over: Partial<NewTurn> = {}): NewTurn {
  return {
    id: uuidv7(),
    agent_id: 'a',
    kind: 'main',
    origin: { type: 'api' },
    model: 'm',
    created_at: new Date().toISOString(),
    metadata: null,
    request: { input: 'hi', agent_id: 'a' },
    idempotency_key: null,
    request_hash: null,
    ...over,
  };
}

const done = (over: Partial<TurnOutcome> = {}): TurnOutcome => ({
  status: 'completed', completed_at: '2026-01-01T00:00:01.000Z', output_text: 'hello', stop_reason: 'stop', steps: 1,
  usage: { input_tokens: 3, output_tokens: 4 }, error: null, ...over,
});

const msg = (text: string): TranscriptItem => ({ type: 'message', role: 'user', content: text });

export function describeTurnStoreContract(engine: string, open: () => Promise<TurnPorts>): void {
  const withPorts = (fn: (p: TurnPorts) => Promise<void>) => async () => {
    const p = await open();
    try {
      await fn(p);
    } finally {
      await p.close();
    }
  };

  describe(`TurnStore contract (${engine})`, () => {
    it('stores a queued turn with its request and binding, finishes it once', withPorts(async ({ store }) => {
      const t = newTurn({ kind: 'workflow_task', metadata: { k: 1 }, origin: { type: 'workflow', workflow_id: 'w', task_index: 0 }, binding: { workflowId: 'w', taskIndex: 0, attempt: 2 } });
      await store.insert(t);
      expect(await store.get(t.id)).toMatchObject({ id: t.id, status: 'queued', kind: 'workflow_task', metadata: { k: 1 }, usage: { input_tokens: 0, output_tokens: 0 }, error: null, started_at: null });
      expect(await store.getRequest(t.id)).toEqual(t.request);
      expect(await store.getBinding(t.id)).toEqual({ workflowId: 'w', taskIndex: 0, attempt: 2 });
      expect(await store.finish(t.id, done())).toBe(true);
      expect(await store.get(t.id)).toMatchObject({ status: 'completed', output_text: 'hello', steps: 1, usage: { input_tokens: 3, output_tokens: 4 } });
      expect(await store.finish(t.id, done({ status: 'failed', error: { code: 'x', message: 'y' } }))).toBe(false);
      expect((await store.get(t.id))!.status).toBe('completed');
      expect(await store.get('missing')).toBeUndefined();
      expect(await store.getBinding('missing')).toBeUndefined();
    }));

    it('finds a turn by idempotency key and refuses a second turn with the same key', withPorts(async ({ store }) => {
      const t = newTurn({ idempotency_key: 'k1', request_hash: 'h1' });
      await store.insert(t);
      expect(await store.findByIdempotencyKey('k1')).toEqual({ id: t.id, request_hash: 'h1' });
      expect(await store.findByIdempotencyKey('k2')).toBeUndefined();
      await expect(store.insert(newTurn({ idempotency_key: 'k1' }))).rejects.toThrow();
    }));

    it('lists newest first with filters and an id cursor, and finds ids by status', withPorts(async ({ store, queue }) => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const t = newTurn({ agent_id: i % 2 ? 'odd' : 'even' });
        await store.insert(t);
        ids.push(t.id);
      }
      expect((await store.list({ limit: 10 })).map((t) => t.id)).toEqual([...ids].reverse());
      expect((await store.list({ limit: 10, agent_id: 'odd' })).map((t) => t.id)).toEqual([ids[3], ids[1]]);
      expect((await store.list({ limit: 2, before: ids[3] })).map((t) => t.id)).toEqual([ids[2], ids[1]]);
      await queue.claim('me', Date.now(), 10_000);
      expect((await store.list({ limit: 10, status: 'running' })).map((t) => t.id)).toEqual([ids[0]]);
      expect(await store.idsWithStatus(['running', 'queued'])).toEqual(ids);
      expect(await store.idsWithStatus([])).toEqual([]);
    }));

    it('stores a cancel request only on an unfinished turn; finishQueued ends only a queued turn', withPorts(async ({ store, queue }) => {
      const a = newTurn();
      const b = newTurn();
      await store.insert(a);
      await store.insert(b);
      expect(await store.cancelRequestedAt(a.id)).toBeNull();
      expect(await store.requestCancel(a.id, '2026-01-01T00:00:00.000Z')).toBe(true);
      expect(await store.requestCancel(a.id, '2026-01-01T00:00:09.000Z')).toBe(true);
      expect(await store.cancelRequestedAt(a.id)).toBe('2026-01-01T00:00:00.000Z');
      await queue.claim('me', Date.now(), 10_000); // a is running now
      expect(await store.finishQueued(a.id, done({ status: 'cancelled' }))).toBe(false);
      expect(await store.finishQueued(b.id, done({ status: 'cancelled' }))).toBe(true);
      expect(await store.requestCancel(b.id, '2026-01-01T00:00:00.000Z')).toBe(false);
    }));

    it('finds the turns continuing a turn (previous_turn_id) of the same agent, newest first', withPorts(async ({ store }) => {
      const root = newTurn();
      const a = newTurn({ request: { input: 'a', agent_id: 'a', previous_turn_id: root.id } });
      const b = newTurn({ request: { input: 'b', agent_id: 'a', previous_turn_id: root.id } });
      const other = newTurn({ agent_id: 'b', request: { input: 'x', agent_id: 'b', previous_turn_id: root.id } });
      for (const t of [root, a, b, other]) await store.insert(t);
      expect(await store.continuations(root.id, 'a')).toEqual([b.id, a.id]);
      expect(await store.continuations(a.id, 'a')).toEqual([]);
    }));
  });

  describe(`TurnQueue contract (${engine})`, () => {
    it('claims oldest first, never the same turn twice, and records the first start', withPorts(async ({ store, queue }) => {
      const a = newTurn();
      const b = newTurn();
      await store.insert(a);
      await store.insert(b);
      const now = Date.now();
      // Which of the concurrent claimers comes away empty depends on the engine's timing.
      const claims = await Promise.all([queue.claim('x', now, 10_000), queue.claim('y', now, 10_000), queue.claim('z', now, 10_000)]);
      const got = claims.filter((c) => c !== undefined);
      expect(got.map((c) => c.id).sort()).toEqual([a.id, b.id].sort());
      expect(got.map((c) => c.previousRun)).toEqual(['none', 'none']);
      expect((await store.get(a.id))!.started_at).not.toBeNull();
    }));

    it('renews only for the owner, reports a stored cancel, and hands an expired lease to another owner as lost', withPorts(async ({ store, queue }) => {
      const t = newTurn();
      await store.insert(t);
      const now = 1_000_000;
      await queue.claim('x', now, 1000);
      const renew = async (owner: string, at: number, leaseMs: number) => Object.fromEntries(await queue.renewMany([t.id], owner, at, leaseMs));
      expect(await renew('x', now + 500, 1000)).toEqual({ [t.id]: { cancelRequested: false } });
      expect(await renew('y', now + 500, 1000)).toEqual({});
      expect(await queue.claim('y', now + 1400, 1000)).toBeUndefined(); // lease renewed to now+1500
      await store.requestCancel(t.id, new Date().toISOString());
      expect(await renew('x', now + 1400, 100)).toEqual({ [t.id]: { cancelRequested: true } });
      expect(await queue.claim('y', now + 2000, 1000)).toMatchObject({ id: t.id, previousRun: 'lost' });
      expect(await renew('x', now + 2000, 1000)).toEqual({});
    }));

    it('renewMany renews every turn the owner holds in one call and leaves out the ones it lost', withPorts(async ({ store, queue }) => {
      const [a, b, c] = [newTurn(), newTurn(), newTurn()];
      for (const t of [a, b, c]) await store.insert(t);
      const now = 1_000_000;
      for (let i = 0; i < 3; i++) await queue.claim('x', now, 1000);
      await store.requestCancel(b.id, new Date().toISOString());
      const held = await queue.renewMany([a.id, b.id, c.id, 'no-such-turn'], 'x', now + 500, 1000);
      expect(Object.fromEntries(held)).toEqual({ [a.id]: { cancelRequested: false }, [b.id]: { cancelRequested: true }, [c.id]: { cancelRequested: false } });
      // Renewed: nobody can take them before now + 1500; then c lapses, is taken, and x lost it.
      expect(await queue.claim('y', now + 1400, 1000)).toBeUndefined();
      await queue.renewMany([a.id, b.id], 'x', now + 1400, 1000);
      expect(await queue.claim('y', now + 1600, 1000)).toMatchObject({ id: c.id, previousRun: 'lost' });
      expect([...(await queue.renewMany([a.id, c.id], 'x', now + 1700, 1000)).keys()]).toEqual([a.id]);
      expect((await queue.renewMany([], 'x', now, 1000)).size).toBe(0);
    }));

    it('release makes a turn claimable at once as released; finish drops the lease of a finished turn', withPorts(async ({ store, queue }) => {
      const t = newTurn();
      await store.insert(t);
      const now = Date.now();
      await queue.claim('x', now, 60_000);
      await queue.release(t.id, 'x');
      expect(await queue.claim('y', now, 60_000)).toMatchObject({ id: t.id, previousRun: 'released' });
      await store.finish(t.id, done());
      await queue.finish(t.id, 'y');
      expect(await queue.claim('z', now + 120_000, 60_000)).toBeUndefined();
    }));

    it('a deferred turn is queued again and claimable only from its time on, as a first run', withPorts(async ({ store, queue }) => {
      const t = newTurn();
      await store.insert(t);
      const now = Date.now();
      await queue.claim('x', now, 60_000);
      expect(await queue.defer(t.id, 'y', now + 1000)).toBe(false); // not y's turn
      expect(await queue.defer(t.id, 'x', now + 1000)).toBe(true);
      expect(await store.get(t.id)).toMatchObject({ status: 'queued', started_at: null });
      expect(await queue.claim('y', now + 999, 60_000)).toBeUndefined();
      expect(await queue.claim('y', now + 1000, 60_000)).toMatchObject({ id: t.id, previousRun: 'none' });
    }));

    it('a waiting turn is not claimable until enqueued again', withPorts(async ({ store, queue }) => {
      const t = newTurn();
      await store.insert(t);
      const now = Date.now();
      await queue.claim('x', now, 60_000);
      expect(await queue.wait(t.id, 'x')).toBe(true);
      expect((await store.get(t.id))!.status).toBe('waiting');
      expect(await queue.claim('y', now + 120_000, 60_000)).toBeUndefined();
      expect(await queue.enqueue(t.id)).toBe(true);
      expect((await queue.claim('y', now, 60_000))?.id).toBe(t.id);
    }));
  });

  describe(`TurnCheckpointStore contract (${engine})`, () => {
    it('appends items and replaces the checkpoint atomically; refuses a save that does not continue the items', withPorts(async ({ store, checkpoints }) => {
      const t = newTurn();
      await store.insert(t);
      expect(await checkpoints.load(t.id)).toBeUndefined();
      expect(await checkpoints.itemCount(t.id)).toBe(0);
      await checkpoints.save(t.id, { version: 1, step: 0, itemCount: 1, state: '{"a":1}' }, [msg('one')]);
      await checkpoints.save(t.id, { version: 1, step: 1, itemCount: 3, state: '{"a":2}' }, [msg('two'), msg('three')]);
      expect(await checkpoints.load(t.id)).toEqual({ version: 1, step: 1, itemCount: 3, state: '{"a":2}' });
      expect(await checkpoints.items(t.id)).toEqual([msg('one'), msg('two'), msg('three')]);
      expect(await checkpoints.items(t.id, 2)).toEqual([msg('one'), msg('two')]);
      await expect(checkpoints.save(t.id, { version: 1, step: 2, itemCount: 3, state: '{"a":3}' }, [msg('again')])).rejects.toThrow();
      expect(await checkpoints.load(t.id)).toMatchObject({ step: 1, state: '{"a":2}' });
      expect(await checkpoints.itemCount(t.id)).toBe(3);
    }));

    it('returns the stored state text unchanged, even when it is not JSON', withPorts(async (p) => {
      const t = newTurn();
      await p.store.insert(t);
      await p.checkpoints.save(t.id, { version: 1, step: 0, itemCount: 0, state: '{}' }, []);
      await p.corruptCheckpoint(t.id, '{"$schemaVersion": 1, "steps": ');
      expect((await p.checkpoints.load(t.id))!.state).toBe('{"$schemaVersion": 1, "steps": ');
    }));
  });
}
