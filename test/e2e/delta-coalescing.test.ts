/**
 * A long answer streamed in tiny deltas is stored and streamed as few, larger `message.delta`
 * events whose text joins to exactly the answer; `message.completed` carries it whole. Real
 * service, real SDK, scripted model sending 7-character deltas.
 */
import { describe, expect, it } from 'vitest';
import { message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';
import { readSse } from './support/sse-client.js';

const harness = useScriptedService();

describe('delta coalescing in a real turn', () => {
  it('turns 20,000 deltas of a 140 KB answer into a few dozen events with the same text', async () => {
    const text = 'lorem ipsum dolor sit amet, '.repeat(5000);
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 7) chunks.push(text.slice(i, i + 7));
    harness.model.push({ output: [message(text, { chunks })] });
    const created = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'write a lot' });
    expect(created.body.status).toBe('completed');
    const r = await readSse(`${harness.svc.url}/v1/turns/${created.body.id}/events`, { timeoutMs: 30_000 });
    const deltas = r.events.filter((e) => e.event === 'message.delta').map((e) => e.json.text as string);
    expect(deltas.join('')).toBe(text);
    expect(deltas.length).toBeLessThan(200);
    expect(deltas.length).toBeGreaterThanOrEqual(Math.ceil(text.length / 4102));
    expect(r.events.find((e) => e.event === 'message.completed')!.json.text).toBe(text);
    expect(created.body.output_text).toBe(text);
  }, 60_000);
});
