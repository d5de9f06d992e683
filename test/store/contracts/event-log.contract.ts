/**
 * Contract suite of the {@link EventLog} port (storage only; wake-ups are the EventNotifier's):
 * call `describeEventLogContract(name, open)` from an engine's test file (SQLite:
 * test/store/sqlite-event-log.test.ts). `open` returns a fresh, empty log.
 */
import { describe, expect, it } from 'vitest';
import type { EventLog } from '../../../src/store/event-log.js';

type Ev = { type: string; n?: number };

export function describeEventLogContract(engine: string, open: () => Promise<{ log: EventLog<Ev>; close(): Promise<void> }>): void {
  const withLog = (fn: (log: EventLog<Ev>) => Promise<void>) => async () => {
    const o = await open();
    try {
      await fn(o.log);
    } finally {
      await o.close();
    }
  };

  describe(`EventLog contract (${engine})`, () => {
    it('numbers events from 1 per stream, without gaps, independently for each stream', withLog(async (log) => {
      expect((await log.append('a', { type: 'x' })).seq).toBe(1);
      expect((await log.append('a', { type: 'x' })).seq).toBe(2);
      expect((await log.append('b', { type: 'x' })).seq).toBe(1);
      expect(await log.lastSeq('a')).toBe(2);
      expect(await log.lastSeq('none')).toBe(0);
      expect(await log.last('none')).toBeUndefined();
      expect((await log.last('a'))?.seq).toBe(2);
    }));

    it('keeps seq order under concurrent appends to one stream', withLog(async (log) => {
      const stored = await Promise.all(Array.from({ length: 20 }, (_, n) => log.append('c', { type: 'e', n })));
      expect(stored.map((s) => s.seq).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect((await log.read('c', 0)).map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    }));

    it('reads the events after a seq, in order, up to a limit, with their stored time', withLog(async (log) => {
      for (let n = 1; n <= 10; n++) await log.append('s', { type: 'e', n });
      expect((await log.read('s', 0)).map((e) => e.event.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect((await log.read('s', 7)).map((e) => e.seq)).toEqual([8, 9, 10]);
      expect((await log.read('s', 2, 3)).map((e) => e.seq)).toEqual([3, 4, 5]);
      expect(await log.read('s', 10)).toEqual([]);
      const [first] = await log.read('s', 0, 1);
      expect(first).toMatchObject({ streamId: 's', seq: 1, event: { type: 'e', n: 1 } });
      expect(Number.isNaN(Date.parse(first.createdAt))).toBe(false);
    }));
  });
}
