/**
 * Timestamps of stored rows: {@link isoNow} gives `new Date().toISOString()` and follows the
 * clock, but formats once per millisecond — the event log stamping many events (and the
 * checkpoint store its checkpoints) within one millisecond formats the time once, not per row.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { isoNow } from '../../src/store/iso-now.js';
import { SqliteEventLog } from '../../src/store/sqlite-event-log.js';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('isoNow', () => {
  it('is the ISO text of the current time, and follows the clock (also backwards)', () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-12-06T10:00:00.123Z') });
    expect(isoNow()).toBe('2026-12-06T10:00:00.123Z');
    vi.setSystemTime(Date.parse('2026-12-06T10:00:00.124Z'));
    expect(isoNow()).toBe('2026-12-06T10:00:00.124Z');
    vi.setSystemTime(Date.parse('2025-01-01T00:00:00.000Z'));
    expect(isoNow()).toBe('2025-01-01T00:00:00.000Z');
  });

  it('lets the event log stamp the events of one millisecond with one formatting', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-12-06T11:00:00.500Z') });
    const db = openDatabase(':memory:');
    try {
      const log = new SqliteEventLog<{ type: string }>(db);
      const format = vi.spyOn(Date.prototype, 'toISOString');
      const stored = Array.from({ length: 10 }, (_, i) => log.append('s1', { type: `e${i}` }));
      log.flush();
      const events = await Promise.all(stored);
      expect(format.mock.calls.length).toBeLessThanOrEqual(1);
      expect(new Set(events.map((e) => e.createdAt))).toEqual(new Set(['2026-12-06T11:00:00.500Z']));
      expect((await log.read('s1', 0)).map((e) => e.createdAt)).toEqual(Array(10).fill('2026-12-06T11:00:00.500Z'));
    } finally {
      db.close();
    }
  });
});
