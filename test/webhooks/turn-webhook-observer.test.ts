/**
 * The turn webhook observer on real SQLite stores: a terminal event of a turn with no webhook
 * target (no `webhook` in its request, no WEBHOOK_URL) sends nothing and does not read the turn's
 * record; a turn with a webhook gets one delivery whose payload carries that record.
 */
import { describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../src/store/event-log.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteTurnStore } from '../../src/store/sqlite-turn-store.js';
import type { NewDelivery } from '../../src/webhooks/store.js';
import { turnWebhookObserver } from '../../src/webhooks/turn-webhooks.js';
import { newTurn } from '../store/contracts/turn-stores.contract.js';

const completed = (turnId: string): LoggedEvent => ({
  streamId: turnId, seq: 3, createdAt: '2026-12-06T10:00:00.000Z', json: '{}',
  event: { type: 'turn.completed', output_text: 'ok', stop_reason: 'stop', steps: 1, usage: null } as never,
});

function rig(serverUrl?: string) {
  const db = openDatabase(':memory:');
  const turns = new SqliteTurnStore(db);
  let recordReads = 0;
  const sent: NewDelivery[] = [];
  const observe = turnWebhookObserver({
    getTurn: (id) => {
      recordReads++;
      return turns.get(id);
    },
    webhookOf: async (id) => (await turns.getRequest(id))?.webhook,
    serverUrl,
    enqueue: async (d) => void sent.push(...d),
  });
  return { db, turns, observe, sent, recordReads: () => recordReads };
}

describe('turnWebhookObserver', () => {
  it('sends nothing and reads no turn record for a turn without a webhook target', async () => {
    const r = rig();
    try {
      const turn = newTurn();
      await r.turns.insert(turn);
      await r.observe(completed(turn.id));
      expect(r.sent).toEqual([]);
      expect(r.recordReads()).toBe(0);
    } finally {
      r.db.close();
    }
  });

  it('sends the turn record to the webhook of its request, and to WEBHOOK_URL', async () => {
    const r = rig('https://ops.example/hook');
    try {
      const turn = newTurn({ request: { input: 'hi', agent_id: 'a', webhook: { url: 'https://client.example/hook' } } });
      await r.turns.insert(turn);
      await r.observe(completed(turn.id));
      expect(r.sent.map((d) => d.url).sort()).toEqual(['https://client.example/hook', 'https://ops.example/hook']);
      const payload = JSON.parse(r.sent[0].payload);
      expect(payload.type).toBe('turn.completed');
      expect(payload.data.turn.id).toBe(turn.id);
      expect(payload.data.event).toMatchObject({ type: 'turn.completed', seq: 3, turn_id: turn.id });
    } finally {
      r.db.close();
    }
  });
});
