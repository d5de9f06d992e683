import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { SqliteEventLog } from '../../src/store/sqlite-event-log.js';
import { InProcessEventNotifier } from '../../src/store/in-process-notifier.js';
import { PublishedEventLog } from '../../src/store/published-event-log.js';
import { describeEventLogContract } from './contracts/event-log.contract.js';

type Ev = { type: string; n?: number };
const dirs: string[] = [];
function tempDir() {
  const d = mkdtempSync(path.join(os.tmpdir(), 'eventlog-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describeEventLogContract('sqlite', async () => {
  const db = openDatabase(':memory:');
  return {
    log: new SqliteEventLog(db),
    close: async () => {
      db.close();
    },
  };
});

describe('SqliteEventLog', () => {
  it('numbers events from 1 per stream, independently for each stream', async () => {
    const log = new PublishedEventLog(new SqliteEventLog<Ev>(openDatabase(':memory:')), new InProcessEventNotifier<Ev>());
    expect((await log.append('a', { type: 'x' })).seq).toBe(1);
    expect((await log.append('a', { type: 'x' })).seq).toBe(2);
    expect((await log.append('b', { type: 'x' })).seq).toBe(1);
    expect(await log.lastSeq('a')).toBe(2);
    expect(await log.lastSeq('none')).toBe(0);
    expect(await log.last('none')).toBeUndefined();
  });

  it('reads the events after a seq, in order, up to a limit', async () => {
    const log = new PublishedEventLog(new SqliteEventLog<Ev>(openDatabase(':memory:')), new InProcessEventNotifier<Ev>());
    for (let n = 1; n <= 10; n++) await log.append('s', { type: 'e', n });
    expect((await log.read('s', 0)).map((e) => e.event.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect((await log.read('s', 7)).map((e) => e.seq)).toEqual([8, 9, 10]);
    expect((await log.read('s', 2, 3)).map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(await log.read('s', 10)).toEqual([]);
    const [first] = await log.read('s', 0, 1);
    expect(first).toMatchObject({ streamId: 's', seq: 1, event: { type: 'e', n: 1 } });
    expect(Number.isNaN(Date.parse(first.createdAt))).toBe(false);
  });

  it('notifies subscribers after storing and before the append resolves, in seq order, only for their stream', async () => {
    const db = openDatabase(':memory:');
    const log = new PublishedEventLog(new SqliteEventLog<Ev>(db), new InProcessEventNotifier<Ev>());
    const seen: number[] = [];
    const storedAtNotify: number[] = [];
    const count = db.prepare("SELECT COUNT(*) AS n FROM event_log WHERE stream_id = 's'");
    const off = log.subscribe('s', (e) => {
      seen.push(e.seq);
      storedAtNotify.push((count.get() as { n: number }).n);
    });
    let seenWhenResolved: number[] = [];
    await log.append('s', { type: 'a' }).then(() => (seenWhenResolved = [...seen]));
    expect(seenWhenResolved).toEqual([1]); // notified before the append resolves
    await log.append('other', { type: 'a' });
    await log.append('s', { type: 'b' });
    expect(seen).toEqual([1, 2]);
    expect((await log.read('s', 0)).map((e) => e.seq)).toEqual(storedAtNotify);
    off();
    await log.append('s', { type: 'c' });
    expect(seen).toEqual([1, 2]);
  });

  it('drops a throwing subscriber without failing the append or other subscribers', async () => {
    const log = new PublishedEventLog(new SqliteEventLog<Ev>(openDatabase(':memory:')), new InProcessEventNotifier<Ev>());
    let calls = 0;
    const good: number[] = [];
    log.subscribe('s', () => {
      calls++;
      throw new Error('bad listener');
    });
    log.subscribe('s', (e) => good.push(e.seq));
    await log.append('s', { type: 'a' });
    await log.append('s', { type: 'b' });
    expect(calls).toBe(1);
    expect(good).toEqual([1, 2]);
  });

  it('keeps events across a reopen of the database file', async () => {
    const dir = tempDir();
    const db1 = openDatabase(dir);
    await new PublishedEventLog(new SqliteEventLog<Ev>(db1), new InProcessEventNotifier<Ev>()).append('s', { type: 'kept', n: 7 });
    db1.close();
    const log2 = new PublishedEventLog(new SqliteEventLog<Ev>(openDatabase(dir)), new InProcessEventNotifier<Ev>());
    expect((await log2.read('s', 0)).map((e) => e.event)).toEqual([{ type: 'kept', n: 7 }]);
    expect((await log2.append('s', { type: 'next' })).seq).toBe(2);
  });
});
