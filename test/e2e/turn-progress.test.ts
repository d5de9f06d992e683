/**
 * Progress of a running turn on its record (steps, usage): written at most once a second while
 * it runs (not a commit per round), exact once it finishes. Real service, real SDK against the
 * scripted Responses server, the real todo tool.
 */
import { describe, expect, it } from 'vitest';
import { PROGRESS_EVERY_MS } from '../../src/turns/turn-run.js';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';
import { readSse } from './support/sse-client.js';

const harness = useScriptedService();
const ROUNDS = 30;

describe('turn progress on the record', () => {
  it('is written at most once a second while a turn runs many rounds, and is exact when it ends', async () => {
    const rounds = (body: ResponsesRequestBody) => {
      const n = body.input.filter((i: { type?: string }) => i.type === 'function_call_output').length;
      return n < ROUNDS
        ? { output: [functionCall('todo', { todos: [{ id: String(n), content: `step ${n}` }], merge: true })], usage: { input_tokens: 10, output_tokens: 1 } }
        : { output: [message('done')], usage: { input_tokens: 10, output_tokens: 1 } };
    };
    for (let i = 0; i <= ROUNDS; i++) harness.model.push(rounds);
    const store = harness.svc.services.turnStore;
    const update = store.updateProgress.bind(store);
    let writes = 0;
    store.updateProgress = async (id, p) => {
      writes++;
      return update(id, p);
    };
    const t0 = Date.now();
    try {
      const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'plan', tools: ['todo'], max_steps: ROUNDS + 1 }, timeoutMs: 60_000 });
      expect(r.events.at(-1)?.json).toMatchObject({ type: 'turn.completed', steps: ROUNDS + 1 });
      const elapsed = Date.now() - t0;
      expect(writes).toBeGreaterThanOrEqual(1);
      expect(writes).toBeLessThanOrEqual(Math.ceil(elapsed / PROGRESS_EVERY_MS) + 1);
      expect(writes).toBeLessThan(ROUNDS);
      const turn = await api(harness.svc.url, 'GET', `/v1/turns/${r.headers.get('x-turn-id')}`);
      expect(turn.body).toMatchObject({ status: 'completed', steps: ROUNDS + 1, usage: { input_tokens: 10 * (ROUNDS + 1), output_tokens: ROUNDS + 1 } });
    } finally {
      store.updateProgress = update;
    }
  });
});
