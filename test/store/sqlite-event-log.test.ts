import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { SqliteEventLog } from '../../src/store/sqlite-event-log.js';
import { InProcessEventNotifier } from '../../src/store/in-process-notifier.js';
import { PublishedEventLog } from '../../src/store/published-event-log.js';
import { describeEventLogContract } from './contracts/event-log.contract.js';

/** Several connections on one file (as several processes would be): opened without the service's exclusive lock. */
const SHARED = { exclusive: false };

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
    const db1 = openDatabase(dir, SHARED);
    await new PublishedEventLog(new SqliteEventLog<Ev>(db1), new InProcessEventNotifier<Ev>()).append('s', { type: 'kept', n: 7 });
    db1.close();
    const log2 = new PublishedEventLog(new SqliteEventLog<Ev>(openDatabase(dir, SHARED)), new InProcessEventNotifier<Ev>());
    expect((await log2.read('s', 0)).map((e) => e.event)).toEqual([{ type: 'kept', n: 7 }]);
    expect((await log2.append('s', { type: 'next' })).seq).toBe(2);
  });

  it('commits the appends of one event-loop turn together, and resolves them only once committed', async () => {
    const dir = tempDir();
    const writer = openDatabase(dir, SHARED);
    const reader = openDatabase(dir, SHARED); // another connection sees only committed rows
    const log = new SqliteEventLog<Ev>(writer);
    const count = reader.prepare("SELECT COUNT(*) FROM event_log WHERE stream_id = 's'").pluck();
    const appends = Array.from({ length: 50 }, (_, n) => log.append('s', { type: 'e', n }));
    expect(count.get()).toBe(0); // queued, not yet written
    let settled = 0;
    appends.forEach((p) => p.then(() => settled++));
    await Promise.resolve();
    expect(settled).toBe(0); // nothing resolves before its commit
    const stored = await Promise.all(appends);
    expect(count.get()).toBe(50);
    expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    writer.close();
    reader.close();
  });

  it('appendQueued gives the seq at once and stores the event with the batch', async () => {
    const dir = tempDir();
    const [writer, reader] = [openDatabase(dir, SHARED), openDatabase(dir, SHARED)];
    const log = new SqliteEventLog<Ev>(writer);
    const count = reader.prepare("SELECT COUNT(*) FROM event_log WHERE stream_id = 's'").pluck();
    const a = log.appendQueued('s', { type: 'a' });
    const b = log.appendQueued('s', { type: 'b' });
    expect([a.seq, b.seq]).toEqual([1, 2]);
    expect(count.get()).toBe(0);
    expect((await b.stored).seq).toBe(2);
    expect(count.get()).toBe(2);
    writer.close();
    reader.close();
  });

  it('a joined write is committed in the same transaction as the events around it', async () => {
    const dir = tempDir();
    const [writer, reader] = [openDatabase(dir, SHARED), openDatabase(dir, SHARED)];
    writer.exec('CREATE TABLE side (v TEXT)');
    const log = new SqliteEventLog<Ev>(writer);
    const events = (db: typeof writer) => db.prepare("SELECT COUNT(*) FROM event_log WHERE stream_id = 's'").pluck().get();
    const e1 = log.appendQueued('s', { type: 'before' });
    let during: unknown;
    const joined = log.joinBatch(() => {
      writer.prepare('INSERT INTO side (v) VALUES (?)').run('checkpoint');
      // Inside one open transaction: the writer sees the event before it, nobody else sees anything yet.
      during = { inTransaction: writer.inTransaction, writerSees: events(writer), othersSee: events(reader) };
    });
    const e2 = log.appendQueued('s', { type: 'after' });
    await joined;
    expect(during).toEqual({ inTransaction: true, writerSees: 1, othersSee: 0 });
    expect(events(reader)).toBe(2);
    expect(reader.prepare('SELECT COUNT(*) FROM side').pluck().get()).toBe(1);
    expect([(await e1.stored).seq, (await e2.stored).seq]).toEqual([1, 2]);
    writer.close();
    reader.close();
  });

  it('a joined write that throws is rolled back alone: its caller gets the error, the events are stored', async () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE side (v TEXT NOT NULL)');
    const log = new SqliteEventLog<Ev>(db);
    const insert = db.prepare('INSERT INTO side (v) VALUES (?)');
    const e1 = log.appendQueued('s', { type: 'a' });
    const bad = log.joinBatch(() => {
      insert.run('written, then rolled back');
      insert.run(null); // NOT NULL constraint
    });
    const e2 = log.append('s', { type: 'b' });
    await expect(bad).rejects.toThrow(/NOT NULL/);
    expect([(await e1.stored).seq, (await e2).seq]).toEqual([1, 2]);
    expect(db.prepare('SELECT COUNT(*) FROM side').pluck().get()).toBe(0);
    expect((await log.read('s', 0)).map((e) => e.event.type)).toEqual(['a', 'b']);
  });

  it('an atomic joined write (one statement) that fails changes nothing and costs the batch nothing', async () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE side (v TEXT NOT NULL)');
    const log = new SqliteEventLog<Ev>(db);
    const insertTwo = db.prepare("INSERT INTO side (v) VALUES ('first'), (?)");
    const e1 = log.appendQueued('s', { type: 'a' });
    const bad = log.joinBatch(() => void insertTwo.run(null), { atomic: true }); // NOT NULL on the second row
    const good = log.joinBatch(() => void insertTwo.run('second'), { atomic: true });
    const e2 = log.append('s', { type: 'b' });
    await expect(bad).rejects.toThrow(/NOT NULL/);
    await good;
    expect([(await e1.stored).seq, (await e2).seq]).toEqual([1, 2]);
    expect(db.prepare('SELECT v FROM side ORDER BY rowid').pluck().all()).toEqual(['first', 'second']);
    expect((await log.read('s', 0)).map((e) => e.event.type)).toEqual(['a', 'b']);
  });

  it('reads its own queued appends (a read writes what is queued first)', async () => {
    const log = new SqliteEventLog<Ev>(openDatabase(':memory:'));
    const pending = log.append('s', { type: 'a' });
    void log.append('s', { type: 'b' });
    expect((await log.read('s', 0)).map((e) => e.event.type)).toEqual(['a', 'b']);
    expect(await log.lastSeq('s')).toBe(2);
    expect((await pending).seq).toBe(1);
  });

  it('numbers after events another connection stored meanwhile, keeping its own order', async () => {
    const dir = tempDir();
    const [da, db] = [openDatabase(dir, SHARED), openDatabase(dir, SHARED)];
    const a = new SqliteEventLog<Ev>(da);
    const b = new SqliteEventLog<Ev>(db);
    expect((await a.append('s', { type: 'e', n: 1 })).seq).toBe(1); // a now expects seq 2 next
    await b.append('s', { type: 'e', n: 2 });
    await b.append('s', { type: 'e', n: 3 });
    const next = await Promise.all([a.append('s', { type: 'e', n: 4 }), a.append('s', { type: 'e', n: 5 })]);
    expect(next.map((e) => e.seq)).toEqual([4, 5]);
    expect((await a.read('s', 0)).map((e) => [e.seq, e.event.n])).toEqual([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]]);
    da.close();
    db.close();
  });
});
