/**
 * A turn event's SSE data made from the JSON the store kept (routes/turns.ts turnEventFrameData)
 * is, byte for byte, what serializing the event with its seq, turn_id and created_at gives — for
 * events stored and read back by the real SQLite event log, including the ones that carry a
 * turn_id of their own and one whose fields JSON cannot represent.
 */
import { describe, expect, it } from 'vitest';
import { turnEventData, turnEventFrameData } from '../../routes/turns.js';
import type { TurnEvent } from '../../src/runtime/events.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteEventLog } from '../../src/store/sqlite-event-log.js';

const events = [
  { type: 'turn.started', turn_id: 't-1', model: 'm', tools: ['noop'], unavailable: [] },
  { type: 'tool.started', call_id: 'c1', name: 'noop', label: 'No-op "quoted"\n', arguments: { n: 1, nested: { list: [1, 'two'] } } },
  { type: 'message.delta', text: 'héllo \u2028 wörld' },
  { type: 'tool.completed', call_id: 'c1', name: 'noop', label: null, is_error: false, output: 'ok', details: { big: 10n } },
  { type: 'turn.completed', output_text: 'done', stop_reason: 'stop', steps: 2, usage: null },
] as unknown as TurnEvent[];

describe('turnEventFrameData', () => {
  it('equals the serialized turnEventData for every event appended and read back', async () => {
    const log = new SqliteEventLog<TurnEvent>(openDatabase(':memory:'));
    const appended = await Promise.all(events.map((e) => log.append('t-1', e)));
    const read = await log.read('t-1', 0);
    for (const logged of [...appended, ...read]) {
      const data = turnEventFrameData(logged);
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      expect(text).toBe(JSON.stringify(turnEventData(logged)));
    }
    // Made from the stored JSON where it can be (not for turn.started, which has its own turn_id).
    expect(appended.map((l) => typeof turnEventFrameData(l))).toEqual(['object', 'string', 'string', 'string', 'string']);
  });

  it('falls back to the object for an event without stored JSON (a store that keeps none)', () => {
    const logged = { streamId: 't-2', seq: 3, createdAt: '2026-12-06T00:00:00.000Z', event: events[2] };
    expect(turnEventFrameData(logged)).toEqual(turnEventData(logged));
  });
});
