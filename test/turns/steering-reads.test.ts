/**
 * When a running turn reads its steering messages: not at every round boundary, but at the run's
 * first boundary, after an `input.queued` of the turn was notified, after the model answered, and
 * at least every INPUT_RECHECK_MS in case a notification was lost (another instance's message).
 * Real SQLite stores and event log with the in-process notifier; the clock is the hook's own.
 */
import { describe, expect, it } from 'vitest';
import { initialTurnState } from '../../src/runtime/turn-state.js';
import type { TurnEvent } from '../../src/runtime/events.js';
import { openDatabase } from '../../src/store/database.js';
import { InProcessEventNotifier } from '../../src/store/in-process-notifier.js';
import { PublishedEventLog } from '../../src/store/published-event-log.js';
import { SqliteEventLog } from '../../src/store/sqlite-event-log.js';
import { SqliteTurnInputStore } from '../../src/store/sqlite-turn-input-store.js';
import { INPUT_RECHECK_MS, TurnInputs } from '../../src/turns/inputs/turn-inputs.js';

function rig() {
  const db = openDatabase(':memory:');
  const store = new SqliteTurnInputStore(db);
  let reads = 0;
  let closes = 0;
  const listAfter = store.listAfter.bind(store);
  store.listAfter = (turnId, after) => {
    reads++;
    return listAfter(turnId, after);
  };
  const close = store.close.bind(store);
  store.close = (...args) => {
    closes++;
    return close(...args);
  };
  const events = new PublishedEventLog(new SqliteEventLog<TurnEvent>(db), new InProcessEventNotifier<TurnEvent>());
  let now = Date.parse('2026-12-02T03:00:00Z');
  const inputs = new TurnInputs({ store, turns: { get: async () => undefined }, events, notifier: events.notifier, clock: () => new Date(now) });
  const emitted: TurnEvent[] = [];
  const hook = inputs.boundary('t1', (e) => void emitted.push(e));
  /** Store a message as another instance would, with or without the notification reaching us. */
  const arrive = async (content: string, notified: boolean) => {
    const m = (await store.add({ id: `msg_${content}`, turn_id: 't1', content, source: 'api', created_at: new Date(now).toISOString() }))!;
    if (notified) await events.append('t1', { type: 'input.queued', message_id: m.id });
    return m;
  };
  return { inputs, store, hook, arrive, reads: () => reads, closes: () => closes, advance: (ms: number) => (now += ms), emitted, close: () => (hook.close(), db.close()) };
}

describe('steering reads of a running turn', () => {
  it('a turn nobody steers reads once at its first boundary, not at every round', async () => {
    const r = rig();
    const state = initialTurnState([]);
    for (let i = 0; i < 50; i++) expect(await r.hook(state, 'round')).toBeUndefined();
    expect(r.reads()).toBe(1);
    r.close();
  });

  it('a notified message is taken at the next boundary, and applied once', async () => {
    const r = rig();
    const state = initialTurnState([]);
    await r.hook(state, 'round');
    await r.arrive('stop after this', true);
    const got = await r.hook(state, 'round');
    expect(got?.items).toEqual([{ type: 'message', role: 'user', content: 'stop after this' }]);
    state.inputCursor = got!.cursor;
    await got!.applied!();
    expect(r.emitted).toEqual([{ type: 'input.applied', message_id: 'msg_stop after this' }]);
    expect(await r.hook(state, 'round')).toBeUndefined();
    r.close();
  });

  it('after the model answered it always reads (the last chance for a message to make the turn go on)', async () => {
    const r = rig();
    const state = initialTurnState([]);
    await r.hook(state, 'round');
    await r.arrive('one more thing', false);
    expect(await r.hook(state, 'round')).toBeUndefined(); // no notification, recheck not due
    expect((await r.hook(state, 'answer'))?.items).toHaveLength(1);
    r.close();
  });

  it('a message whose notification was lost is still taken within INPUT_RECHECK_MS', async () => {
    const r = rig();
    const state = initialTurnState([]);
    await r.hook(state, 'round');
    await r.arrive('from the other instance', false);
    r.advance(INPUT_RECHECK_MS - 1);
    expect(await r.hook(state, 'round')).toBeUndefined();
    r.advance(1);
    expect((await r.hook(state, 'round'))?.items).toEqual([{ type: 'message', role: 'user', content: 'from the other instance' }]);
    expect(r.reads()).toBe(2);
    r.close();
  });

  it('a queue closed empty at the answer is not closed in the store again when the turn ends', async () => {
    const r = rig();
    const state = initialTurnState([]);
    await r.hook(state, 'round');
    expect(await r.hook(state, 'answer')).toBeUndefined(); // nothing pending: the queue closes
    expect(r.closes()).toBe(1);
    expect(await r.inputs.closeQueue('t1', 0)).toEqual([]); // the turn's end: nothing left, no transaction
    expect(r.closes()).toBe(1);
    // The queue is closed in the store all the same: a later message is refused.
    expect(await r.store.add({ id: 'msg_late', turn_id: 't1', content: 'late', source: 'api', created_at: new Date().toISOString() })).toBeUndefined();
    r.close();
  });

  it('a queue that is not known closed empty is closed in the store when the turn ends', async () => {
    const r = rig();
    const state = initialTurnState([]);
    await r.hook(state, 'round');
    await r.arrive('never applied', false);
    expect((await r.hook(state, 'answer'))?.items).toHaveLength(1); // pending: the queue stays open
    expect((await r.inputs.closeQueue('t1', 0)).map((m) => m.content)).toEqual(['never applied']);
    expect(r.closes()).toBe(2);
    r.close();
  });

  it('close() stops listening: later notifications do not make reads', async () => {
    const r = rig();
    const state = initialTurnState([]);
    await r.hook(state, 'round');
    r.hook.close();
    await r.arrive('too late', true);
    await r.hook(state, 'round');
    expect(r.reads()).toBe(1);
    r.close();
  });
});
