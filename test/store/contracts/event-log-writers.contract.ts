/**
 * Contract of an {@link EventLog} engine with several writers (beside ./event-log.contract.ts;
 * call from an engine's test file): per-stream seq from 1,
 * gapless and in append order — also for many appends in flight at once and for two writers on
 * one database — reads after a seq with a limit, last/lastSeq, unserializable fields as markers.
 */
import { describe, expect, it } from 'vitest';
import type { EventLog } from '../../../src/store/event-log.js';

type Ev = { type: string; n?: number; big?: unknown };

export interface EventLogs {
  /** Two logs on one fresh database (as two instances open it). */
  a: EventLog<Ev>;
  b: EventLog<Ev>;
  close(): Promise<void>;
}

export function describeEventLogWritersContract(engine: string, open: () => Promise<EventLogs>): void {
  const withLogs = (fn: (l: EventLogs) => Promise<void>) => async () => {
    const l = await open();
    try {
      await fn(l);
    } finally {
      await l.close();
    }
  };

  describe(`EventLog writers contract (${engine})`, () => {
    it('numbers events from 1 per stream and reads after a seq with a limit', withLogs(async ({ a }) => {
      expect((await a.append('s', { type: 'e', n: 1 })).seq).toBe(1);
      expect((await a.append('t', { type: 'e', n: 1 })).seq).toBe(1);
      for (let n = 2; n <= 10; n++) await a.append('s', { type: 'e', n });
      expect((await a.read('s', 0)).map((e) => e.event.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect((await a.read('s', 7)).map((e) => e.seq)).toEqual([8, 9, 10]);
      expect((await a.read('s', 2, 3)).map((e) => e.seq)).toEqual([3, 4, 5]);
      expect(await a.lastSeq('s')).toBe(10);
      expect(await a.lastSeq('none')).toBe(0);
      expect((await a.last('s'))?.event).toEqual({ type: 'e', n: 10 });
      expect(await a.last('none')).toBeUndefined();
    }));

    it('keeps seq gapless and in append order with 500 appends in flight at once', withLogs(async ({ a }) => {
      const logged = await Promise.all(Array.from({ length: 500 }, (_, n) => a.append('burst', { type: 'e', n })));
      expect(logged.map((l) => l.seq)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
      const stored = await a.read('burst', 0, 1000);
      expect(stored.map((e) => e.event.n)).toEqual(Array.from({ length: 500 }, (_, i) => i));
      expect(stored.map((e) => e.event)).toEqual(logged.map((l) => l.event));
    }));

    it('stays gapless when two writers append to one stream at the same moment', withLogs(async ({ a, b }) => {
      const all = await Promise.all(Array.from({ length: 200 }, (_, n) => (n % 2 ? a : b).append('shared', { type: 'e', n })));
      const seqs = all.map((l) => l.seq).sort((x, y) => x - y);
      expect(seqs).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      const stored = await a.read('shared', 0, 1000);
      expect(stored.map((e) => e.seq)).toEqual(seqs);
      // each writer's own events keep their order
      const mine = stored.filter((e) => (e.event.n ?? 0) % 2 === 1).map((e) => e.event.n);
      expect(mine).toEqual([...mine].sort((x, y) => x! - y!));
    }));

    it('stores an event with an unserializable field as a marker, and returns the stored form', withLogs(async ({ a }) => {
      const logged = await a.append('u', { type: 'e', big: 10n });
      expect(String((logged.event as Ev).big)).toMatch(/^\[unserializable/);
      expect((await a.read('u', 0))[0].event).toEqual(logged.event);
    }));
  });
}
