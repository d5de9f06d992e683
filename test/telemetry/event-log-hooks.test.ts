/**
 * Observers of the event log (src/telemetry/event-log-hooks.ts) on a real SQLite event log: every
 * stored event reaches every observer once, in the order stored — also when an observer answers
 * some events asynchronously (slowly) — and an observer that throws or rejects costs neither the
 * append nor the other observers. Observers that answer synchronously have seen an event by the
 * time its write-behind append settles.
 */
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../../src/store/database.js';
import type { LoggedEvent } from '../../src/store/event-log.js';
import { InProcessEventNotifier } from '../../src/store/in-process-notifier.js';
import { PublishedEventLog } from '../../src/store/published-event-log.js';
import { SqliteEventLog } from '../../src/store/sqlite-event-log.js';
import { observeEventLog } from '../../src/telemetry/event-log-hooks.js';
import { ServiceMetrics } from '../../src/telemetry/metrics.js';

type Ev = { type: string };

function setup(observers: ((logged: LoggedEvent) => void | Promise<void>)[]) {
  const errors: string[] = [];
  const log = observeEventLog(new PublishedEventLog(new SqliteEventLog<Ev>(openDatabase(':memory:')), new InProcessEventNotifier<Ev>()), {
    metrics: new ServiceMetrics(() => ({ queued: 0, running: 0 })),
    observers,
    onObserverError: (err) => errors.push(String(err)),
  });
  return { log, errors };
}

describe('observeEventLog', () => {
  it('observes every queued event in stored order, also while an observer is slow on some of them', async () => {
    const seen: string[] = [];
    const { log } = setup([
      (l) => {
        seen.push(`a:${l.event.type}`);
        // Slow on every third event: the ones after it must still be observed after it.
        if (l.seq % 3 === 0) return sleep(5).then(() => void seen.push(`a-done:${l.event.type}`));
      },
      (l) => void seen.push(`b:${l.event.type}`),
    ]);
    const stored = Array.from({ length: 7 }, (_, i) => log.appendQueued!('s', { type: `e${i + 1}` }).stored);
    await Promise.all(stored);
    await sleep(50);
    const order = (prefix: string) => seen.filter((x) => x.startsWith(`${prefix}:`)).map((x) => x.slice(prefix.length + 1));
    const all = ['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7'];
    expect(order('a')).toEqual(all);
    expect(order('b')).toEqual(all);
    // b sees a slow event only after a finished with it, and nobody sees e4 before e3 is done.
    expect(seen.indexOf('b:e3')).toBeGreaterThan(seen.indexOf('a-done:e3'));
    expect(seen.indexOf('a:e4')).toBeGreaterThan(seen.indexOf('a-done:e3'));
  });

  it('has run synchronous observers by the time a write-behind append settles', async () => {
    const seen: number[] = [];
    const { log } = setup([(l) => void seen.push(l.seq)]);
    const q = log.appendQueued!('s', { type: 'x' });
    await q.stored;
    expect(seen).toEqual([1]);
  });

  it('an observer that throws or rejects is reported; the append and the other observers go on', async () => {
    const seen: string[] = [];
    const { log, errors } = setup([
      (l) => {
        if (l.event.type === 'boom') throw new Error('sync boom');
      },
      async (l) => {
        if (l.event.type === 'late') throw new Error('async boom');
      },
      (l) => void seen.push(l.event.type),
    ]);
    await log.append('s', { type: 'boom' });
    await log.appendQueued!('s', { type: 'late' }).stored;
    await log.appendQueued!('s', { type: 'fine' }).stored;
    await sleep(10);
    expect(seen).toEqual(['boom', 'late', 'fine']);
    expect(errors).toEqual(['Error: sync boom', 'Error: async boom']);
    expect((await log.read('s', 0)).map((e) => e.event.type)).toEqual(['boom', 'late', 'fine']);
  });
});
