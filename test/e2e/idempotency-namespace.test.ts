/** A client's Idempotency-Key can never take a key the service uses itself (scheduler runs). */
import { describe, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';

const harness = useScriptedService();

describe('idempotency key namespaces', () => {
  it('keeps a client key apart from the scheduler key with the same text', async () => {
    harness.model.push({ output: [message('from client')] }, { output: [message('from scheduler')] });
    const key = 'schedule_run:0190a000-0000-7000-8000-000000000001';
    // A client sends the scheduler's key first…
    const client = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'client' }, { 'idempotency-key': key });
    expect(client.status).toBe(200);
    // …and the scheduler's own create with that key still starts its own turn (no 409).
    const scheduled = await harness.svc.services.turns.create(
      { input: 'scheduled', agent_id: 'default' },
      { idempotencyKey: key, origin: { type: 'schedule', schedule_id: 's1' }, kind: 'scheduled' },
    );
    expect(scheduled.id).not.toBe((client.body as { id: string }).id);
    // The client's key still replays the client's turn.
    const again = await api(harness.svc.url, 'POST', '/v1/turns', { input: 'client' }, { 'idempotency-key': key });
    expect((again.body as { id: string }).id).toBe((client.body as { id: string }).id);
    await harness.svc.services.turns.waitForTerminal(scheduled.id);
  });
});
