/**
 * Contract suite of the {@link TurnInputStore} port (steering messages), run against every engine
 * with {@link describeEachEngine}: test/store/turn-inputs.test.ts.
 */
import { expect, it } from 'vitest';
import type { TurnInputStore } from '../../../src/turns/inputs/input-store.js';

let n = 0;
const msg = (turn: string, content: string) => ({ id: `msg_${String(++n).padStart(32, '0')}`, turn_id: turn, content, source: 'api', created_at: new Date().toISOString() });

export function turnInputsContract(open: () => Promise<{ store: TurnInputStore; close(): Promise<void> }>): void {
  const withStore = (fn: (s: TurnInputStore) => Promise<void>) => async () => {
    const o = await open();
    try {
      await fn(o.store);
    } finally {
      await o.close();
    }
  };

  it('numbers each turn\'s messages 1, 2, 3 in the order stored and lists those after a seq', withStore(async (s) => {
    const a1 = (await s.add(msg('turn-a', 'first')))!;
    const b1 = (await s.add(msg('turn-b', 'other turn')))!;
    const a2 = (await s.add(msg('turn-a', 'second')))!;
    expect([a1.seq, b1.seq, a2.seq]).toEqual([1, 1, 2]);
    expect(a1).toMatchObject({ turn_id: 'turn-a', content: 'first', source: 'api', applied_at: null });
    expect((await s.listAfter('turn-a', 0)).map((m) => m.content)).toEqual(['first', 'second']);
    expect((await s.listAfter('turn-a', 1)).map((m) => m.content)).toEqual(['second']);
    expect(await s.listAfter('turn-c', 0)).toEqual([]);
  }));

  it('gives concurrent adds on one turn distinct consecutive seqs', withStore(async (s) => {
    const added = await Promise.all(Array.from({ length: 20 }, (_, i) => s.add(msg('turn-c', `m${i}`))));
    expect(added.map((m) => m!.seq).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  }));

  it('marks messages applied up to a seq once: a second or racing mark returns nothing new', withStore(async (s) => {
    for (const c of ['one', 'two', 'three']) await s.add(msg('turn-d', c));
    const first = await s.markApplied('turn-d', 2, '2026-01-01T00:00:00.000Z');
    expect(first.map((m) => [m.content, m.applied_at])).toEqual([['one', '2026-01-01T00:00:00.000Z'], ['two', '2026-01-01T00:00:00.000Z']]);
    expect(await s.markApplied('turn-d', 2, '2026-01-01T00:00:01.000Z')).toEqual([]);
    const raced = await Promise.all([s.markApplied('turn-d', 3, 'x'), s.markApplied('turn-d', 3, 'y')]);
    expect(raced.flat().map((m) => m.content)).toEqual(['three']);
    expect((await s.listAfter('turn-d', 0)).map((m) => m.applied_at === null)).toEqual([false, false, false]);
  }));

  it('closing a turn\'s queue refuses later adds and returns the messages after the cursor not applied', withStore(async (s) => {
    for (const c of ['one', 'two', 'three']) await s.add(msg('turn-e', c));
    await s.markApplied('turn-e', 1, '2026-01-01T00:00:00.000Z');
    const closed = await s.close('turn-e', 1, '2026-01-01T00:00:02.000Z');
    expect(closed.closed).toBe(true);
    expect(closed.pending.map((m) => m.content)).toEqual(['two', 'three']);
    expect(await s.add(msg('turn-e', 'too late'))).toBeUndefined();
    expect((await s.listAfter('turn-e', 0)).map((m) => m.content)).toEqual(['one', 'two', 'three']);
    expect((await s.close('turn-e', 1, 'again')).pending.map((m) => m.content)).toEqual(['two', 'three']);
    expect((await s.add(msg('turn-f', 'other turn')))?.seq).toBe(1);
  }));

  it('a close ifIdle leaves the queue open while messages are pending after the cursor', withStore(async (s) => {
    await s.add(msg('turn-g', 'pending'));
    const kept = await s.close('turn-g', 0, 'now', { ifIdle: true });
    expect(kept).toMatchObject({ closed: false, pending: [{ content: 'pending' }] });
    expect((await s.add(msg('turn-g', 'still open')))?.seq).toBe(2);
    const idle = await s.close('turn-g', 2, 'now', { ifIdle: true });
    expect(idle).toEqual({ closed: true, pending: [] });
    expect(await s.add(msg('turn-g', 'refused'))).toBeUndefined();
  }));

  it('an add racing a close is either in the close\'s pending messages or refused, never lost', withStore(async (s) => {
    const adds = Array.from({ length: 20 }, (_, i) => s.add(msg('turn-h', `m${i}`)));
    const close = s.close('turn-h', 0, 'now');
    const [added, closed] = await Promise.all([Promise.all(adds), close]);
    const accepted = added.filter((m) => m !== undefined).map((m) => m.id);
    expect(closed.pending.map((m) => m.id).sort()).toEqual(accepted.sort());
    expect((await s.listAfter('turn-h', 0)).map((m) => m.id).sort()).toEqual(accepted.sort());
  }));
}
