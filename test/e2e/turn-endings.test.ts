/**
 * Turns that end without answer text are failures a client cannot mistake for success, through
 * the HTTP service (real server, scripted model, SSE validated against openapi.yaml).
 */
import { describe, expect, it } from 'vitest';
import { functionCall, message } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from './support/service.js';
import { readSse } from './support/sse-client.js';
import { validateComponent } from './support/spec.js';

const harness = useScriptedService();

async function runTurn(): Promise<{ turn: any; events: { event?: string; json: any }[] }> {
  const created = await api(harness.svc.url, 'POST', '/v1/turns?wait=true', { input: 'go' });
  expect(created.status).toBe(200);
  const sse = await readSse(`${harness.svc.url}/v1/turns/${created.body.id}/events`);
  for (const ev of sse.events) expect(validateComponent('TurnEvent', ev.json), ev.event).toEqual([]);
  return { turn: created.body, events: sse.events };
}

describe('turn endings over HTTP', () => {
  it('an empty model response ends turn.failed empty_response, and the record says failed', async () => {
    harness.model.push({ output: [] });
    const { turn, events } = await runTurn();
    expect(turn).toMatchObject({ status: 'failed', error: { code: 'empty_response' } });
    expect(events.at(-1)).toMatchObject({ event: 'turn.failed', json: { error: { code: 'empty_response' } } });
  });

  it('an answer cut twice by max_output_tokens without text ends turn.failed max_output_tokens', async () => {
    const cut = { output: [functionCall('todo', '{"todos": [{"id": "1", "cont')], status: 'incomplete' as const, incompleteReason: 'max_output_tokens' as const };
    harness.model.push(cut, cut);
    const { turn, events } = await runTurn();
    expect(turn).toMatchObject({ status: 'failed', error: { code: 'max_output_tokens' } });
    expect(events.map((e) => e.event)).not.toContain('turn.completed');
    expect(harness.model.requests.at(-1)!.body.input.at(-1)).toMatchObject({ role: 'developer', content: expect.stringMatching(/cut off/) });
  });

  it('an answer still completes normally', async () => {
    harness.model.push({ output: [message('fine')] });
    const { turn } = await runTurn();
    expect(turn).toMatchObject({ status: 'completed', output_text: 'fine', stop_reason: 'stop' });
  });
});
