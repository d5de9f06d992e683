import { describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { openDatabase } from '../../src/store/database.js';
import { SqliteTurnStore } from '../../src/store/sqlite-turn-store.js';
import type { NewTurn } from '../../src/store/turn-store.js';

function newTurn(over: Partial<NewTurn> = {}): NewTurn {
  return {
    id: uuidv7(),
    agent_id: 'a',
    kind: 'main',
    origin: { type: 'api' },
    model: 'm',
    created_at: new Date().toISOString(),
    metadata: null,
    request: { input: 'hi', agent_id: 'a' },
    idempotency_key: null,
    request_hash: null,
    ...over,
  };
}

describe('SqliteTurnStore', () => {
  it('stores a queued turn, runs and finishes it, keeping request and transcript', () => {
    const store = new SqliteTurnStore(openDatabase(':memory:'));
    const t = newTurn({ metadata: { k: 1 }, origin: { type: 'schedule', schedule_id: 's1' } });
    store.insert(t);
    expect(store.get(t.id)).toMatchObject({ id: t.id, status: 'queued', metadata: { k: 1 }, origin: { type: 'schedule', schedule_id: 's1' }, usage: { input_tokens: 0, output_tokens: 0 }, error: null });
    expect(store.getRequest(t.id)).toEqual(t.request);
    expect(store.getTranscript(t.id)).toBeNull();
    store.markRunning(t.id, '2026-01-01T00:00:00.000Z');
    expect(store.get(t.id)).toMatchObject({ status: 'running', started_at: '2026-01-01T00:00:00.000Z' });
    const transcript = [{ type: 'message', role: 'user', content: 'hi' }] as never;
    store.finish(t.id, { status: 'completed', completed_at: '2026-01-01T00:00:01.000Z', output_text: 'hello', stop_reason: 'stop', steps: 1, usage: { input_tokens: 3, output_tokens: 4 }, error: null, transcript });
    expect(store.get(t.id)).toMatchObject({ status: 'completed', output_text: 'hello', steps: 1, usage: { input_tokens: 3, output_tokens: 4 } });
    expect(store.getTranscript(t.id)).toEqual(transcript);
    expect(store.get('missing')).toBeUndefined();
    expect(store.getTranscript('missing')).toBeUndefined();
  });

  it('finds a turn by idempotency key and refuses a second turn with the same key', () => {
    const store = new SqliteTurnStore(openDatabase(':memory:'));
    const t = newTurn({ idempotency_key: 'k1', request_hash: 'h1' });
    store.insert(t);
    expect(store.findByIdempotencyKey('k1')).toEqual({ id: t.id, request_hash: 'h1' });
    expect(store.findByIdempotencyKey('k2')).toBeUndefined();
    expect(() => store.insert(newTurn({ idempotency_key: 'k1' }))).toThrow(/UNIQUE/);
  });

  it('lists newest first with filters and an id cursor, and finds ids by status', () => {
    const store = new SqliteTurnStore(openDatabase(':memory:'));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const t = newTurn({ agent_id: i % 2 ? 'odd' : 'even' });
      store.insert(t);
      ids.push(t.id);
    }
    expect(store.list({ limit: 10 }).map((t) => t.id)).toEqual([...ids].reverse());
    expect(store.list({ limit: 10, agent_id: 'odd' }).map((t) => t.id)).toEqual([ids[3], ids[1]]);
    expect(store.list({ limit: 2, before: ids[3] }).map((t) => t.id)).toEqual([ids[2], ids[1]]);
    store.markRunning(ids[0], new Date().toISOString());
    expect(store.list({ limit: 10, status: 'running' }).map((t) => t.id)).toEqual([ids[0]]);
    expect(store.idsWithStatus(['running', 'queued'])).toEqual(ids);
    expect(store.idsWithStatus([])).toEqual([]);
  });
});
