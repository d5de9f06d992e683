/**
 * The webhook store's contract: one suite, run on SQLite and on Postgres. Claims are checked with
 * two store instances on one database (as two service instances see it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { PgWebhookStore } from '../../src/store/postgres/pg-webhook-store.js';
import { SqliteWebhookStore, type NewDelivery, type WebhookStore } from '../../src/webhooks/store.js';
import { migratedSchema } from '../support/postgres.js';
import { describeEachEngine, type EngineName } from '../support/store-engines.js';

/** Several connections on one file (as several processes would be): opened without the service's exclusive lock. */
const SHARED = { exclusive: false };

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

async function twoStores(engine: EngineName): Promise<[WebhookStore, WebhookStore]> {
  if (engine === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-store-'));
    const [a, b] = [openDatabase(dir, SHARED), openDatabase(dir, SHARED)];
    closers.push(() => fs.rmSync(dir, { recursive: true, force: true }), () => a.close(), () => b.close());
    return [new SqliteWebhookStore(a), new SqliteWebhookStore(b)];
  }
  const { db, url } = await migratedSchema();
  const other = new PgDatabase({ url, max: 4 });
  closers.push(() => db.close(), () => other.close());
  return [new PgWebhookStore(db), new PgWebhookStore(other)];
}

const delivery = (n: number, over: Partial<NewDelivery> = {}): NewDelivery => ({
  message_id: `msg_${n}`,
  subject_type: 'turn',
  subject_id: `turn-${n % 2}`,
  event_type: 'turn.completed',
  url: 'https://hooks.example/in',
  payload: `{"n":${n}}`,
  created_at: 1000 + n,
  ...over,
});

describeEachEngine('webhook store', (engine) => {
  it('stores each (message, url) once and lists a subject oldest first', async () => {
    const [a] = await twoStores(engine);
    await a.enqueue([delivery(1), delivery(3), delivery(1, { url: 'https://other.example/in' })]);
    await a.enqueue([delivery(1)]); // the same message to the same URL again: ignored
    const listed = await a.listFor('turn', 'turn-1');
    expect(listed.map((d) => [d.message_id, d.url, d.state, d.next_attempt_at, d.attempts])).toEqual([
      ['msg_1', 'https://hooks.example/in', 'pending', 1001, []],
      ['msg_3', 'https://hooks.example/in', 'pending', 1003, []],
      ['msg_1', 'https://other.example/in', 'pending', 1001, []],
    ]);
    expect(listed[0]).toMatchObject({ subject_type: 'turn', subject_id: 'turn-1', event_type: 'turn.completed', payload: '{"n":1}', created_at: 1001 });
    expect(await a.listFor('turn', 'nope')).toEqual([]);
    expect(await a.nextDueAt()).toBe(1001);
  });

  it('lets two instances claiming at the same moment take each due delivery once, leased; an expired lease is claimable again', async () => {
    const [a, b] = await twoStores(engine);
    await a.enqueue(Array.from({ length: 20 }, (_, i) => delivery(i)));
    await a.enqueue([delivery(99, { created_at: 50_000 })]); // not due yet
    const [x, y] = await Promise.all([a.claimDue(10_000, 16, 'A', 5000), b.claimDue(10_000, 16, 'B', 5000)]);
    const ids = [...x, ...y].map((d) => d.message_id).sort();
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => `msg_${i}`).sort());
    expect(await b.claimDue(12_000, 16, 'B', 5000)).toEqual([]); // all leased
    const again = await b.claimDue(15_001, 50, 'B', 5000); // leases ran out (owners crashed)
    expect(again.map((d) => d.message_id).sort()).toEqual(ids);
    expect(again.map((d) => d.next_attempt_at)).toEqual([...again.map((d) => d.next_attempt_at!)].sort((p, q) => p - q));
  });

  it('records attempts in order and the new state, releasing the lease', async () => {
    const [a, b] = await twoStores(engine);
    await a.enqueue([delivery(1)]);
    const [d] = await a.claimDue(2000, 1, 'A', 60_000);
    const failed = { attempt: 1, at: '2026-01-01T00:00:00.000Z', status: 500, error: 'HTTP 500', duration_ms: 12 };
    await a.recordAttempt(d.id, failed, { state: 'pending', next_attempt_at: 3000 });
    expect(await b.nextDueAt()).toBe(3000);
    expect(await b.claimDue(2500, 1, 'B', 60_000)).toEqual([]);
    const [retry] = await b.claimDue(3000, 1, 'B', 60_000); // the lease was released with the attempt
    expect(retry.attempts).toEqual([failed]);
    const ok = { attempt: 2, at: '2026-01-01T00:00:10.000Z', status: 204, error: null, duration_ms: 3 };
    await b.recordAttempt(retry.id, ok, { state: 'delivered', next_attempt_at: null });
    const [stored] = await a.listFor('turn', 'turn-1');
    expect(stored).toMatchObject({ state: 'delivered', next_attempt_at: null, attempts: [failed, ok] });
    expect(await a.nextDueAt()).toBeNull();
    expect(await a.claimDue(1e12, 10, 'A', 1)).toEqual([]);
  });

  it('remembers one webhook per subject (the last one wins)', async () => {
    const [a, b] = await twoStores(engine);
    expect(await b.subscription('workflow', 'w1')).toBeUndefined();
    await a.subscribe('workflow', 'w1', { url: 'https://hooks.example/one' });
    await a.subscribe('workflow', 'w1', { url: 'https://hooks.example/two' });
    expect(await b.subscription('workflow', 'w1')).toEqual({ url: 'https://hooks.example/two' });
    expect(await b.subscription('workflow', 'w2')).toBeUndefined();
  });
});
